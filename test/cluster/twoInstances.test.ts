import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createBoard, instancesForSuite, postFrame } from '../helpers/fixtures.js';
import { addObject, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import { eventually } from '../helpers/testServer.js';
import { startWebhookReceiver, type ReceivedRequest } from '../helpers/webhookReceiver.js';

/**
 * Scale-out (docs/architecture.md): two instances on one PostgreSQL database and one Redis.
 * Any instance serves any board: clients of one board on different instances converge live,
 * and what one instance does to a board's sockets reaches the sockets on the other.
 */
const REDIS_URL = process.env.REDIS_URL;
const runs = Boolean(REDIS_URL && postgresServerUrl());

describe.skipIf(!runs)('two instances on PostgreSQL and Redis (needs DATABASE_URL=postgresql://… and REDIS_URL)', () => {
  // The API's 100 calls a minute per key; this file's other tests make far fewer.
  const { first, second, database, connect } = instancesForSuite((prefix) => ({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_KEY_PREFIX: `${prefix}rl:` }));

  /** A board made through the first instance, as its organization. */
  const newBoard = () => createBoard(first, 'Cluster');

  const objectIds = (client: BoardClient) => [...client.doc.getMap('objects').keys()];

  it('converges the clients of one board on different instances, edits and awareness, live', async () => {
    const board = await newBoard();
    const onFirst = connect(first, board.access_links.host, board.board_uuid);
    const onSecond = connect(second, board.access_links.guest, board.board_uuid);
    await Promise.all([onFirst.saved(), onSecond.saved()]);

    addObject(onFirst.doc, { id: 'from-first', x: 10, y: 10 });
    addObject(onSecond.doc, { id: 'from-second', x: 20, y: 20 });
    await eventually(() => objectIds(onFirst).includes('from-second') && objectIds(onSecond).includes('from-first'));

    onFirst.provider.setAwarenessField('user', { name: 'Teacher on the first' });
    await eventually(() =>
      [...onSecond.provider.awareness!.getStates().values()].some((state) => (state.user as { name?: string } | undefined)?.name === 'Teacher on the first'),
    );
  });

  it('writes each acknowledged update once, on the instance that received it', async () => {
    const board = await newBoard();
    const onFirst = connect(first, board.access_links.host, board.board_uuid);
    const onSecond = connect(second, board.access_links.guest, board.board_uuid);
    await Promise.all([onFirst.saved(), onSecond.saved()]);
    const marker = `once-${randomUUID()}`;
    addObject(onFirst.doc, { id: marker, x: 1, y: 1 });
    await onFirst.saved();
    await eventually(() => objectIds(onSecond).includes(marker));

    const rows = await updateRowsHolding(database.url, board.board_uuid, marker);
    expect(rows).toBe(1);
  });

  it('shows a REST write made on one instance to sockets on the other', async () => {
    const board = await newBoard();
    const onFirst = connect(first, board.access_links.guest, board.board_uuid);
    await onFirst.saved();
    const created = await second.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'via REST' }, position: { x: 5, y: 5 } }, { 'x-api-key': first.apiKey });
    expect(created.status).toBe(201);
    await eventually(() => objectIds(onFirst).includes(created.body.id));
  });

  it('announces a participant who joins on one instance to the sockets on the other', async () => {
    const board = await newBoard();
    const onFirst = connect(first, board.access_links.host, board.board_uuid);
    await onFirst.saved();
    const onSecond = connect(second, board.access_links.guest, board.board_uuid, { user_id: 'guest-on-second' });
    await onSecond.saved();
    const minted = await sessionParticipantOf(onSecond);
    const joined = await eventually(() => onFirst.messages.find((message) => message.type === 'participant:joined' && message.participant?.user_id === minted));
    expect(joined!.participant.user_name).toBe('guest-on-second');
  });

  it('closes the sockets on both instances when a session ends on one', async () => {
    const board = await newBoard();
    const onFirst = connect(first, board.access_links.guest, board.board_uuid);
    const onSecond = connect(second, board.access_links.guest, board.board_uuid);
    await Promise.all([onFirst.saved(), onSecond.saved()]);
    const ended = await first.api('POST', `/boards/${board.board_uuid}/end-session`);
    expect(ended.status).toBe(200);
    await eventually(() => onSecond.closes.some((close) => close.code === 4000) && onFirst.closes.some((close) => close.code === 4000));
  });

  it('closes the sockets on the other instance when a board is deleted, and keeps nothing of it', async () => {
    const board = await newBoard();
    const onSecond = connect(second, board.access_links.guest, board.board_uuid);
    await onSecond.saved();
    addObject(onSecond.doc, { id: 'before-delete', x: 1, y: 1 });
    await onSecond.saved();
    const deleted = await first.api('DELETE', `/boards/${board.board_uuid}`);
    expect(deleted.status).toBe(204);
    await eventually(() => onSecond.closes.some((close) => close.code === 4404));
    expect(await updateRowsHolding(database.url, board.board_uuid, '')).toBe(0);
  });

  it('delivers each of 20 events exactly once, whichever instance raised it', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const subscribed = await first.api('POST', '/webhooks/subscriptions', { url: receiver.url, events: ['object.created'] });
      expect(subscribed.status).toBe(201);
      const board = await newBoard();
      const ofBoard = (request: ReceivedRequest) => request.json?.data?.board_id === board.board_uuid;
      // The second instance learns of the new subscription from the first one's signal.
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? first : second).api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { index }, position: { x: index, y: 0 } }, { 'x-api-key': first.apiKey }),
        ),
      );
      expect(created.map((answer) => answer.status)).toEqual(Array(20).fill(201));
      await receiver.waitFor(20, ofBoard, 15_000);
      // A 21st event, sent after the others: once it has come, a duplicate of any other would have too.
      const last = await second.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { index: 20 }, position: { x: 20, y: 0 } }, { 'x-api-key': first.apiKey });
      await receiver.waitFor(21, ofBoard, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const objectIds = receiver.requests.filter(ofBoard).map((request) => request.json.data.object_id as string);
      expect(objectIds.sort()).toEqual([...created.map((answer) => answer.body.id as string), last.body.id as string].sort());
    } finally {
      await receiver.close();
    }
  });

  it('lets a starter key make exactly 100 calls a minute across both instances', async () => {
    const starter = await first.newOrganization('starter');
    const answers = await Promise.all(
      Array.from({ length: 130 }, (_, index) => (index % 2 === 0 ? first : second).api('GET', '/boards', undefined, { 'x-api-key': starter.apiKey })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(100);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(30);
  });

  it('closes a zone document on the other instance the moment its zone turns hidden', async () => {
    const board = await newBoard();
    const zone = await postFrame(first, board.board_uuid, { name: 'Ada', bounds_x: 0, bounds_y: 0, assigned_user_id: 'ada', zone_visibility: 'visible' });
    const zoneName = `${board.board_uuid}/zones/${zone.id}`;
    // A classmate reads the visible zone through the second instance.
    const classmate = (await first.personalLink(board.board_uuid, 'bob')).link;
    const onBoard = connect(second, classmate, board.board_uuid);
    const onZone = watchZone(connect(second, classmate, zoneName));
    await Promise.all([onBoard.saved(), onZone.client.synced()]);

    const hidden = await first.api('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { zone_visibility: 'hidden' });
    expect(hidden.status).toBe(200);
    await eventually(() => onBoard.messages.some((message) => message.type === 'frame:deleted' && message.frame?.id === zone.id));
    await eventually(() => onZone.closes.includes('zone-forbidden'));
    // Opening it again through the second instance is refused: its frames are current there too.
    const again = watchZone(connect(second, classmate, zoneName));
    await eventually(() => again.refusals.length > 0);
  });
});

/** A zone-document client with the reasons the server gave for closing or refusing that document. */
function watchZone(client: BoardClient): { client: BoardClient; closes: string[]; refusals: string[] } {
  const watched = { client, closes: [] as string[], refusals: [] as string[] };
  client.provider.on('close', ({ event }: { event: { reason: string } }) => watched.closes.push(String(event.reason)));
  client.provider.on('authenticationFailed', ({ reason }: { reason: string }) => watched.refusals.push(reason));
  return watched;
}

/** How many update-log rows of a board's documents hold `text` (every row when it is empty). */
async function updateRowsHolding(url: string, boardId: string, text: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ update: Buffer }>('SELECT "update" FROM "document_updates" WHERE "name" = $1 OR "name" LIKE $2', [boardId, `${boardId}/%`]);
    return rows.rows.filter((row) => row.update.toString('latin1').includes(text)).length;
  } finally {
    await client.end();
  }
}
