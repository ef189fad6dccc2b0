/**
 * The layout of stored documents (docs/architecture.md): a board's own document is named by the board's id,
 * and each zone's content by `<board>/zones/<frame>`. The store keys documents by these names and
 * files each row under its board; the domain and the realtime side read names through here too.
 */

/** The Yjs document holding a zone's content. */
export function zoneDocumentName(boardId: string, frameId: string): string {
  return `${boardId}/zones/${frameId}`;
}

/** A document of the layout: a board's own, or the content of one of its frames. */
export type DocumentName = { kind: 'board'; boardId: string } | { kind: 'zone'; boardId: string; frameId: string };

/** Board and frame ids as the service makes them (`randomUUID`: lowercase). */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const DOCUMENT_NAME = new RegExp(`^(${UUID})(?:/zones/(${UUID}))?$`);

/**
 * The one grammar of document names: `<board_uuid>` or `<board_uuid>/zones/<frame_uuid>`.
 * Anything else is no document of ours (null) and is never opened, so a client cannot make
 * the server create and keep documents of its own.
 */
export function parseDocumentName(documentName: string): DocumentName | null {
  const match = DOCUMENT_NAME.exec(documentName);
  if (!match) return null;
  const [, boardId, frameId] = match as unknown as [string, string, string | undefined];
  return frameId ? { kind: 'zone', boardId, frameId } : { kind: 'board', boardId };
}

/** The frame id of a zone document name, or null for any other document. */
export function frameIdOfDocument(documentName: string): string | null {
  const name = parseDocumentName(documentName);
  return name?.kind === 'zone' ? name.frameId : null;
}

/** The board a stored document belongs to, or null for a name outside the layout. */
export function boardIdOfDocumentName(documentName: string): string | null {
  return parseDocumentName(documentName)?.boardId ?? null;
}
