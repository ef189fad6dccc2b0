import type { ConnectedParticipant } from './ports.js';
import type { Board, BoardDetails } from './board.js';
import type { BoardObject } from './boardObjects.js';

/** Host and guest links of a board. */
export interface AccessLinks {
  host: string;
  guest: string;
}

const iso = (date: Date) => date.toISOString();

/** The 201 body of board creation and duplication. */
export function presentCreated(board: Board, links: AccessLinks) {
  return {
    board_uuid: board.id,
    title: board.title,
    external_id: board.externalId,
    status: board.lifecycle.status,
    created_at: iso(board.createdAt),
    expires_at: iso(board.expiresAt),
    access_links: links,
    ...(board.issuedWebhookSecret ? { webhook_secret: board.issuedWebhookSecret } : {}),
  };
}

/**
 * One item of the board listings. `counts.objects` is the objects of every document of the
 * board that its reader may count (`Board.objectsCount` is its own document's alone).
 */
export function presentListItem(board: Board, counts: { participants: number; objects: number }) {
  return {
    board_uuid: board.id,
    title: board.title,
    external_id: board.externalId,
    owner_external_id: board.ownerExternalId,
    status: board.lifecycle.status,
    created_at: iso(board.createdAt),
    updated_at: iso(board.updatedAt),
    expires_at: iso(board.expiresAt),
    participants_count: counts.participants,
    objects_count: counts.objects,
  };
}

/** The full board of GET /boards/<id>; `view.objectsCount` counts as presentListItem's `counts.objects`. */
export function presentBoard(
  board: Board,
  details: BoardDetails,
  links: AccessLinks | Pick<AccessLinks, 'guest'>,
  view: { objects?: BoardObject[]; objectsCount: number; participants: ConnectedParticipant[]; includeParticipants: boolean; components?: Board['config']['components'] },
) {
  return {
    ...presentListItem(board, { participants: view.participants.length, objects: view.objectsCount }),
    ...(board.lifecycle.status === 'archived' ? { archived_at: iso(board.lifecycle.archivedAt) } : {}),
    config: view.components ? { ...board.config, components: view.components } : board.config,
    webhook_url: board.webhookUrl,
    external_data: details.externalData,
    ...(details.tutorial ?? {}),
    access_links: links,
    state: {
      version: board.stateVersion,
      ...(view.objects ? { objects: view.objects } : {}),
    },
    ...(view.includeParticipants ? { participants: view.participants } : {}),
  };
}
