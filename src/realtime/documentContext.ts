import { isTransactionOrigin } from '@hocuspocus/server';
import type { DocumentAuthor } from '../boards/ports.js';
import { parseDocumentName } from '../store/documentNames.js';

/**
 * Who is acting on a document: attached to every connection (socket or direct) so hooks
 * can attribute a change without looking anything up (the domain's DocumentAuthor).
 */
export type DocumentContext = DocumentAuthor;

/** The context of a Yjs transaction origin, if it came from a connection of ours. */
export function contextOfOrigin(origin: unknown): Partial<DocumentContext> {
  if (!isTransactionOrigin(origin)) return {};
  if (origin.source === 'connection') return (origin.connection.context ?? {}) as Partial<DocumentContext>;
  if (origin.source === 'local') return (origin.context ?? {}) as Partial<DocumentContext>;
  return {};
}

/**
 * The board a document belongs to (see parseDocumentName). A name outside the layout is never
 * opened (the auth extension refuses it); it maps to itself, the id of no board.
 */
export function boardIdOfDocument(documentName: string): string {
  return parseDocumentName(documentName)?.boardId ?? documentName;
}

/** True for a board's main document (not a zone document). */
export function isBoardDocument(documentName: string): boolean {
  return parseDocumentName(documentName)?.kind === 'board';
}
