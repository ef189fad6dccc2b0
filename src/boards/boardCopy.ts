import { randomUUID } from 'node:crypto';
import { zoneDocumentName } from '../store/documentNames.js';
import type { Board, BoardDetails } from './board.js';
import type { BoardObject } from './boardObjects.js';
import type { LiveDocuments } from './ports.js';
import type { CreateBoardInput } from './schemas.js';

/**
 * What POST /boards/<id>/duplicate copies (objects with positions, config, webhook URL;
 * never the UUID, tokens, participant or session history, timestamps).
 */

/** The settings of a board's copy: its title and external id marked as a copy's. */
export function copySettingsOf(source: Board, details: BoardDetails): CreateBoardInput {
  return {
    title: `${source.title} (Copy)`.slice(0, 255),
    external_id: source.externalId === null ? undefined : `${source.externalId}_copy`,
    owner_external_id: source.ownerExternalId ?? undefined,
    config: source.config,
    webhook_url: source.webhookUrl ?? undefined,
    external_data: details.externalData ?? undefined,
    ...details.tutorial,
  };
}

/**
 * Every object a board holds: its own document's, then those of each frame's document (zones,
 * and frames that were zones) in the order of `frameIds`. An id two documents share is kept by
 * the first; the other object gets a new one.
 */
export async function everyObjectOf(board: Board, frameIds: readonly string[], documents: LiveDocuments): Promise<BoardObject[]> {
  const objects = await documents.readObjects(board.id);
  const taken = new Set(objects.map((object) => object.id));
  for (const frameId of frameIds) {
    for (const object of await documents.readObjects(zoneDocumentName(board.id, frameId))) {
      const copy = taken.has(object.id) ? { ...object, id: randomUUID() } : object;
      taken.add(copy.id);
      objects.push(copy);
    }
  }
  return objects;
}
