import { isTransactionOrigin } from '@hocuspocus/server';

/**
 * Who is acting on a document: attached to every connection (socket or direct) so hooks
 * can attribute a change without looking anything up.
 */
export interface DocumentContext {
  boardId: string;
  organizationId: string;
  /** The acting user or participant id; null for the organization's API key. */
  userId: string | null;
}

/** The context of a Yjs transaction origin, if it came from a connection of ours. */
export function contextOfOrigin(origin: unknown): Partial<DocumentContext> {
  if (!isTransactionOrigin(origin)) return {};
  if (origin.source === 'connection') return origin.connection.context ?? {};
  if (origin.source === 'local') return origin.context ?? {};
  return {};
}

/** The board a document belongs to: `<board_uuid>` or `<board_uuid>/zones/<frame_id>`. */
export function boardIdOfDocument(documentName: string): string {
  return documentName.split('/')[0] ?? documentName;
}

/** True for a board's main document (not a zone document). */
export function isBoardDocument(documentName: string): boolean {
  return !documentName.includes('/');
}
