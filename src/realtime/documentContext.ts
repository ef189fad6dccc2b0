import { isTransactionOrigin } from '@hocuspocus/server';
import { parseDocumentName } from '../frames/frame.js';

/**
 * Who is acting on a document: attached to every connection (socket or direct) so hooks
 * can attribute a change without looking anything up.
 */
export interface DocumentContext {
  boardId: string;
  organizationId: string;
  /**
   * The acting user, for attribution (`created_by`, `updated_by`): a personal link's user or
   * the id a host declares; null for the API key and for the shared guest link.
   */
  userId: string | null;
  /** Set by the server when it moves content between a board's documents (no object events). */
  relocation?: boolean;
}

/** The context of a Yjs transaction origin, if it came from a connection of ours. */
export function contextOfOrigin(origin: unknown): Partial<DocumentContext> {
  if (!isTransactionOrigin(origin)) return {};
  if (origin.source === 'connection') return origin.connection.context ?? {};
  if (origin.source === 'local') return origin.context ?? {};
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
