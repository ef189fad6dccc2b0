import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBoard, instancesForSuite } from '../helpers/fixtures.js';
import { addObject, type BoardClient } from '../helpers/realtimeClient.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import { eventually, type TestServer } from '../helpers/testServer.js';
import { scrape, type Scrape } from './scrape.js';

/** With several instances, each counts what it received: an edit is a socket update where it arrived, a peer update elsewhere. */
const REDIS_URL = process.env.REDIS_URL;
const runs = Boolean(REDIS_URL && postgresServerUrl());

describe.skipIf(!runs)('metrics of two instances on PostgreSQL and Redis (needs DATABASE_URL=postgresql://… and REDIS_URL)', () => {
  const { first, second, connect } = instancesForSuite();

  async function connected(server: TestServer, link: string, name: string): Promise<BoardClient> {
    const client = connect(server, link, name);
    await client.synced();
    return client;
  }
  const updates = (s: Scrape, source: string) => s.value('whiteboard_realtime_updates_total', { source });
  const durable = (s: Scrape) => s.value('whiteboard_update_journal_durable_seconds_count');

  it('an edit is a socket update, and durable, on its instance; a peer update, not written again, on the other', async () => {
    const board = await createBoard(first, 'Cluster metrics');
    const onFirst = await connected(first, board.access_links.host, board.board_uuid);
    const onSecond = await connected(second, board.access_links.guest, board.board_uuid);
    const [firstBefore, secondBefore] = [await scrape(first.url), await scrape(second.url)];
    const id = randomUUID();
    addObject(onFirst.doc, { id });
    await onFirst.saved();
    await eventually(() => onSecond.doc.getMap('objects').has(id));
    const [firstAfter, secondAfter] = [await scrape(first.url), await scrape(second.url)];
    expect(updates(firstAfter, 'socket') - updates(firstBefore, 'socket')).toBe(1);
    expect(updates(secondAfter, 'peer') - updates(secondBefore, 'peer')).toBe(1);
    expect(updates(secondAfter, 'socket')).toBe(updates(secondBefore, 'socket'));
    expect(durable(firstAfter) - durable(firstBefore)).toBe(1);
    expect(durable(secondAfter)).toBe(durable(secondBefore));
    // Each instance counts its own sockets.
    expect(firstAfter.value('whiteboard_realtime_sockets_open')).toBe(1);
    expect(secondAfter.value('whiteboard_realtime_sockets_open')).toBe(1);
  });
});
