import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../src/clock.js';
import type { Plan } from '../../src/organizations/plans.js';
import { PLAN_LIMITS } from '../../src/quotas/quotaTypes.js';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';
import { addObject, authReplyOf, connectBoardClient, encodeAuthFrame, rawSocketOutcome, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * The quotas enforced on sockets: `websocket_messages_daily` (messages of the organization's
 * sockets per UTC day) and `participants` (people per board at once). Both close with 4402.
 */
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const QUOTA_EXCEEDED = { code: 4402, reason: 'quota-exceeded' };
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const { server, clients } = serverForSuite({ clock, env: { ADMIN_TOKEN } });
const rawSockets: WebSocket[] = [];

afterEach(() => {
  rawSockets.splice(0).forEach((socket) => socket.terminate());
});

interface Board {
  id: string;
  host: string;
  guest: string;
}

async function organization(plan: Plan) {
  const { apiKey, organizationId, api } = await organizationCaller(server, plan);
  const newBoard = async (config: Record<string, unknown> = {}): Promise<Board> => {
    const created = await api('POST', '/boards', { title: 'Live lesson', config });
    expect(created.status).toBe(201);
    return { id: created.body.board_uuid, host: created.body.access_links.host, guest: created.body.access_links.guest };
  };
  const quotaEntry = async (type: string) => {
    const read = await api('GET', '/quota');
    expect(read.status).toBe(200);
    return read.body.quotas.find((entry: { type: string }) => entry.type === type) as { current: number; limit: number; resetAt?: string };
  };
  return { apiKey, organizationId, api, newBoard, quotaEntry };
}

function connect(board: Board, role: 'host' | 'guest' = 'guest', params: Record<string, string> = {}): BoardClient {
  const client = connectBoardClient({ url: server.socketUrl(board[role], params), name: board.id });
  clients.push(client);
  return client;
}

interface RawParticipant {
  socket: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * A bare WebSocket that authenticates for the board's document (the Hocuspocus auth message)
 * and then stays silent: a participant that costs almost nothing to keep open.
 */
async function joinRaw(board: Board, userId: string, role: 'host' | 'guest' = 'guest'): Promise<RawParticipant> {
  const url = server.socketUrl(board[role], { user_id: userId });
  const socket = new WebSocket(url);
  rawSockets.push(socket);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('message', (data: Buffer) => {
    const reply = authReplyOf(new Uint8Array(data));
    if (reply && !reply.granted) socket.close();
  });
  await once(socket, 'open');
  socket.send(encodeAuthFrame(board.id, new URL(url).searchParams.get('token') ?? ''));
  return { socket, closed };
}

/** How many people are on the board now (GET /boards/<id>). */
async function participantsOn(org: Awaited<ReturnType<typeof organization>>, board: Board): Promise<number> {
  const read = await org.api('GET', `/boards/${board.id}`);
  expect(read.status).toBe(200);
  return read.body.participants_count as number;
}

describe('the websocket_messages_daily quota', () => {
  const LIMIT = PLAN_LIMITS.starter.websocket_messages_daily;

  it('counts the messages of the organization’s sockets, closes them with 4402 once the day’s limit is used up and refuses new ones until the next UTC day', async () => {
    const org = await organization('starter');
    const board = await org.newBoard();
    const writer = connect(board);
    await writer.synced();
    for (let index = 0; index < 5; index += 1) addObject(writer.doc, { id: `note-${index}`, data: { text: `note ${index}` } });
    await writer.saved();

    await server.app.socketMessages.flush();
    const counted = await org.quotaEntry('websocket_messages_daily');
    expect(counted.current).toBeGreaterThan(0);
    expect(counted).toMatchObject({ limit: LIMIT, resetAt: '2026-03-11T00:00:00.000Z' });

    // Fast-forward through the real counting path: the day's total reaches the limit.
    await server.app.quotas.recordUsage(org.organizationId, 'websocket_messages_daily', LIMIT - counted.current);
    expect((await org.quotaEntry('websocket_messages_daily')).current).toBe(LIMIT);
    // Messages already on their way are counted at the next flush, which finds the limit used up.
    addObject(writer.doc, { id: 'past-the-limit', data: { text: 'counted at the flush' } });
    await writer.saved();
    await server.app.socketMessages.flush();
    expect((await org.quotaEntry('websocket_messages_daily')).current).toBeGreaterThan(LIMIT);

    addObject(writer.doc, { id: 'refused', data: { text: 'never applied' } });
    await eventually(() => writer.closes.length > 0);
    expect(writer.closes[0]).toEqual(QUOTA_EXCEEDED);
    const read = await org.api('GET', `/boards/${board.id}?includeObjects=true`);
    expect(read.status).toBe(200);
    const ids = (read.body.state.objects as Array<{ id: string }>).map((object: { id: string }) => object.id);
    expect(ids).toContain('past-the-limit');
    expect(ids).not.toContain('refused');

    expect(await rawSocketOutcome(server.socketUrl(board.guest))).toMatchObject({ opened: true, ...QUOTA_EXCEEDED });
    const otherBoard = await org.newBoard();
    expect(await rawSocketOutcome(server.socketUrl(otherBoard.host))).toMatchObject({ opened: true, ...QUOTA_EXCEEDED });

    // Another organization's sockets are not affected.
    const other = await organization('starter');
    const elsewhere = connect(await other.newBoard());
    await elsewhere.synced();

    clock.set(new Date('2026-03-11T00:00:00.000Z'));
    const nextDay = connect(board);
    await nextDay.synced();
    addObject(nextDay.doc, { id: 'next-day', data: { text: 'a new day' } });
    await nextDay.saved();
    await server.app.socketMessages.flush();
    const fresh = await org.quotaEntry('websocket_messages_daily');
    expect(fresh.current).toBeGreaterThan(0);
    expect(fresh.current).toBeLessThan(100);
    expect(fresh.resetAt).toBe('2026-03-12T00:00:00.000Z');
    expect(nextDay.closes).toEqual([]);
  });

  it('lets the sockets of an organization that upgraded its plan in again at the next flush (within a second)', async () => {
    const org = await organization('starter');
    const board = await org.newBoard();
    const writer = connect(board);
    await writer.synced();
    await server.app.quotas.recordUsage(org.organizationId, 'websocket_messages_daily', LIMIT);
    addObject(writer.doc, { id: 'at-the-limit' });
    await writer.saved();
    await server.app.socketMessages.flush();
    expect(await rawSocketOutcome(server.socketUrl(board.guest))).toMatchObject({ opened: true, ...QUOTA_EXCEEDED });

    const changed = await request(server.url, 'PATCH', `/api/v1/admin/organizations/${org.organizationId}`, { plan: 'professional' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(changed.status).toBe(200);
    const check = await org.api('GET', '/quota/websocket_messages_daily');
    expect(check.body).toMatchObject({ allowed: true, limit: PLAN_LIMITS.professional.websocket_messages_daily });
    await server.app.socketMessages.flush();
    const upgraded = connect(board);
    await eventually(() => upgraded.provider.isSynced || upgraded.closes.length > 0, 10_000);
    expect(upgraded.closes).toEqual([]);
    addObject(upgraded.doc, { id: 'after-the-upgrade' });
    await upgraded.saved();
    expect(upgraded.closes).toEqual([]);
  });

  it('counts the messages of a socket whose token comes in the provider’s auth message rather than the URL', async () => {
    const org = await organization('starter');
    const board = await org.newBoard();
    const token = new URL(board.guest).searchParams.get('token')!;
    const client = connectBoardClient({ url: `${server.url.replace(/^http/, 'ws')}/api/v1/realtime`, name: board.id, token });
    clients.push(client);
    await client.synced();
    for (let index = 0; index < 5; index += 1) addObject(client.doc, { id: `note-${index}` });
    await client.saved();
    await server.app.socketMessages.flush();
    expect((await org.quotaEntry('websocket_messages_daily')).current).toBeGreaterThan(0);
  });
});

describe('the participants quota', () => {
  it('lets 25 guests onto a starter board that allows 50, closes the 26th with 4402, and still lets a host in', async () => {
    const org = await organization('starter');
    const board = await org.newBoard({ max_participants: 50 });
    const guests: RawParticipant[] = [];
    for (let index = 0; index < 25; index += 1) guests.push(await joinRaw(board, `student-${index}`));
    await eventually(async () => (await participantsOn(org, board)) === 25);

    const refused = await joinRaw(board, 'student-25');
    expect(await refused.closed).toEqual(QUOTA_EXCEEDED);
    expect(await participantsOn(org, board)).toBe(25);
    expect(await org.quotaEntry('participants')).toMatchObject({ current: 25, limit: 25 });

    // A guest already on the board may open a second socket; that is not another person.
    await joinRaw(board, 'student-3');
    const host = await joinRaw(board, 'teacher', 'host');
    await eventually(async () => (await participantsOn(org, board)) === 26);
    for (const guest of guests) expect(guest.socket.readyState).toBe(WebSocket.OPEN);
    expect(host.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('gives an enterprise board no limit but its max_participants (closed with 4409 board-full, not 4402)', async () => {
    const org = await organization('enterprise');
    const board = await org.newBoard({ max_participants: 30 });
    for (let index = 0; index < 30; index += 1) await joinRaw(board, `student-${index}`);
    await eventually(async () => (await participantsOn(org, board)) === 30);

    const refused = await joinRaw(board, 'student-30');
    expect(await refused.closed).toEqual({ code: 4409, reason: 'board-full' });
    expect(await org.quotaEntry('participants')).toMatchObject({ current: 30, limit: -1 });
  });
});
