import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { createBoard, expectOk, restartsForSuite, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { eventually, type ApiResponse, type TestServer } from '../helpers/testServer.js';

/**
 * Agent schedules on the injected clock: the real tick interval is an hour, so only the tests'
 * `tick()` calls, after moving the ManualClock, run anything. Each run is logged as
 * `schedule:trigger` with `{at, entry, scheduled_for}`.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const ENV = { AGENT_TICK_MS: '3600000' };

const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
const suite = serverForSuite({ clock, env: ENV });
const { server } = suite;

type Entry = { at: string; action: string; params: Record<string, unknown> };
type LogEntry = Record<string, any>;

/** A schedule entry that puts a note with `text` on the board: its effect is checkable. */
const noteAt = (at: string, text: string): Entry => ({ at, action: 'create_object', params: { type: 'sticky_note', data: { text }, position: { x: 0, y: 0 } } });

/** Calls the API as one organization (a restarted server has a new one of its own). */
type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
const asSuite: Api = (method, path, body) => server.api(method, path, body);

/** Creates an agent with a schedule, and waits until the runtime has stored its entries. */
async function scheduledAgent(board: CreatedBoard, schedule: Entry[], options: { api?: Api; on?: TestServer; fields?: Record<string, unknown> } = {}) {
  const { api = asSuite, on = server, fields = {} } = options;
  const created = await api('POST', `/boards/${board.board_uuid}/agents`, { name: 'Clockwork', persona: 'timer', instructions: { schedule }, ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await on.app.agents.settled();
  return created.body as { id: string };
}

/** Moves the clock, then runs one tick and waits for its runs. */
async function advance(ms: number, on: TestServer = server): Promise<void> {
  clock.advance(ms);
  await on.app.agents.tick();
  await on.app.agents.settled();
}

/** The scheduled runs of an agent, oldest slot first. */
async function scheduledRuns(board: CreatedBoard, agent: { id: string }, api: Api = asSuite): Promise<LogEntry[]> {
  const response = await api('GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`);
  expect(response.status).toBe(200);
  return (response.body as LogEntry[])
    .filter((entry) => entry.triggerEventType === 'schedule:trigger')
    .sort((a, b) => a.triggerEventData.scheduled_for.localeCompare(b.triggerEventData.scheduled_for));
}

const slotsOf = (runs: LogEntry[]) => runs.map((run) => run.triggerEventData.scheduled_for as string);
const at = (start: Date, ms: number) => new Date(start.getTime() + ms).toISOString();

/** The texts of the notes on a board, as REST shows them. */
async function notesOn(board: CreatedBoard, api: Api = asSuite): Promise<string[]> {
  const response = await api('GET', `/boards/${board.board_uuid}`);
  expect(response.status).toBe(200);
  const objects = response.body.state.objects as Array<{ type: string; data: { text?: string } }>;
  return objects.filter((object) => object.type === 'sticky_note').map((object) => object.data.text ?? '').sort();
}

/** Moves the clock forward to the next UTC time of day `hour:minute:second`. */
function moveToNext(hour: number, minute: number, second = 0): Date {
  const now = clock.now();
  let target = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour, minute, second);
  if (target <= now.getTime()) target += 24 * HOUR;
  clock.set(new Date(target));
  return clock.now();
}

describe('interval schedules', () => {
  it('every:30sec runs once at each slot; after several slots passed it runs once, then keeps its cadence', async () => {
    const board = await createBoard(server, 'Schedules');
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:30sec', 'half a minute')]);
    await advance(29 * SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(1 * SECOND);
    const [first] = await scheduledRuns(board, agent);
    expect(first).toMatchObject({ actionType: 'create_object', shouldAct: true, success: true, errorMessage: null });
    expect(first!.triggerEventData).toEqual({ at: 'every:30sec', entry: 0, scheduled_for: at(start, 30 * SECOND) });
    expect(await notesOn(board)).toEqual(['half a minute']);

    // Three slots (60, 90, 120 s) passed: one run for the oldest, no burst, and the next slot is 150 s.
    await advance(95 * SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 30 * SECOND), at(start, 60 * SECOND)]);
    await advance(0);
    await advance(24 * SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(2);
    await advance(1 * SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 30 * SECOND), at(start, 60 * SECOND), at(start, 150 * SECOND)]);
    expect(await notesOn(board)).toHaveLength(3);
  });

  it('every:5min runs at 5 and 10 minutes, not a second before', async () => {
    const board = await createBoard(server, 'Schedules');
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'five minutes')]);
    await advance(5 * MINUTE - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(SECOND);
    await advance(5 * MINUTE - SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 5 * MINUTE)]);
    await advance(SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 5 * MINUTE), at(start, 10 * MINUTE)]);
    expect(await notesOn(board)).toEqual(['five minutes', 'five minutes']);
  });

  it('every:1hour, as the second entry of a schedule, is logged with entry 1 and skips the hours that passed', async () => {
    const board = await createBoard(server, 'Schedules');
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:7hour', 'seven hours'), noteAt('every:1hour', 'hourly')]);
    await advance(HOUR - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(SECOND);
    const [first] = await scheduledRuns(board, agent);
    expect(first!.triggerEventData).toEqual({ at: 'every:1hour', entry: 1, scheduled_for: at(start, HOUR) });
    await advance(2.5 * HOUR);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, HOUR), at(start, 2 * HOUR)]);
    // At 3.5 h the next slot is 4 h (on the cadence), not 3.5 h + 1 h.
    await advance(30 * MINUTE - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(2);
    await advance(SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, HOUR), at(start, 2 * HOUR), at(start, 4 * HOUR)]);
    expect(await notesOn(board)).toEqual(['hourly', 'hourly', 'hourly']);
  });
});

describe('time-of-day and cron schedules (UTC)', () => {
  it('at:00:05 set up at 23:50 runs after midnight, then once a day', async () => {
    const evening = moveToNext(23, 50);
    const board = await createBoard(server, 'Schedules');
    const agent = await scheduledAgent(board, [noteAt('at:00:05', 'just after midnight')]);
    await advance(14 * MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(MINUTE);
    const [first] = await scheduledRuns(board, agent);
    expect(first!.triggerEventData).toEqual({ at: 'at:00:05', entry: 0, scheduled_for: at(evening, 15 * MINUTE) });
    expect(first!.triggerEventData.scheduled_for).toMatch(/T00:05:00\.000Z$/);
    await advance(24 * HOUR - MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(1);
    await advance(MINUTE);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(evening, 15 * MINUTE), at(evening, 24 * HOUR + 15 * MINUTE)]);
  });

  it('cron:*/15 * * * * runs on the quarter hours; a missed quarter runs once, then the next quarter', async () => {
    const start = moveToNext(10, 7, 30);
    const board = await createBoard(server, 'Schedules');
    const agent = await scheduledAgent(board, [noteAt('cron:*/15 * * * *', 'quarter')]);
    await advance(7 * MINUTE + 29 * SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(SECOND);
    const [first] = await scheduledRuns(board, agent);
    expect(first!.triggerEventData).toEqual({ at: 'cron:*/15 * * * *', entry: 0, scheduled_for: at(start, 7.5 * MINUTE) });
    // 10:55: the 10:30 and 10:45 quarters passed; one run, and the next is 11:00.
    await advance(40 * MINUTE);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 7.5 * MINUTE), at(start, 22.5 * MINUTE)]);
    await advance(5 * MINUTE - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(2);
    await advance(SECOND);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 7.5 * MINUTE), at(start, 22.5 * MINUTE), at(start, 52.5 * MINUTE)]);
  });
});

describe('elapsed schedules (HH:MM:SS after the session started)', () => {
  const tenMinutesIn = { at: '00:10:00', action: 'send_notification', params: { message: 'Ten minutes in', to: 'hosts' } };

  /** Connects the host and answers when its session started. */
  async function startSession(board: CreatedBoard) {
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    // eventually answers only a truthy value: a date.
    const started = (await eventually(() => server.app.agentSockets.sessionStartedAt(board.board_uuid)))!;
    return { host, started };
  }

  it('runs once 10 minutes after the session starts, not again in that session, and again in the next one', async () => {
    const board = await createBoard(server, 'Schedules');
    const agent = await scheduledAgent(board, [tenMinutesIn]);
    await advance(20 * MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);

    const { host, started } = await startSession(board);
    await advance(10 * MINUTE - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(SECOND);
    const [first] = await scheduledRuns(board, agent);
    expect(first).toMatchObject({ actionType: 'send_notification', success: true });
    expect(first!.triggerEventData).toEqual({ at: '00:10:00', entry: 0, scheduled_for: at(started, 10 * MINUTE) });
    await eventually(() => expect(host.messages.filter((message) => message.type === 'agent:notification').map((message) => message.message)).toEqual(['Ten minutes in']));
    await advance(30 * MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(1);

    host.destroy();
    await eventually(() => server.app.agentSockets.sessionStartedAt(board.board_uuid) === null);
    await advance(MINUTE);
    const next = await startSession(board);
    expect(next.started.getTime()).toBeGreaterThan(started.getTime());
    await advance(0);
    await advance(10 * MINUTE);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(started, 10 * MINUTE), at(next.started, 10 * MINUTE)]);
  });

  it('an agent created during a session counts from its start; past its time it does not fire in that session', async () => {
    const board = await createBoard(server, 'Schedules');
    const { started } = await startSession(board);
    await advance(4 * MINUTE);
    const early = await scheduledAgent(board, [tenMinutesIn]);
    await advance(8 * MINUTE);
    const late = await scheduledAgent(board, [tenMinutesIn]);
    await advance(0);
    expect(slotsOf(await scheduledRuns(board, early))).toEqual([at(started, 10 * MINUTE)]);
    await advance(30 * MINUTE);
    expect(await scheduledRuns(board, late)).toHaveLength(0);
  });
});

describe('schedule lifecycle', () => {
  it('a schedule changed by PATCH starts afresh; a PATCH that keeps the pattern keeps the slot', async () => {
    const board = await createBoard(server, 'Schedules');
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'old')]);
    const path = `/boards/${board.board_uuid}/agents/${agent.id}`;
    await advance(4 * MINUTE);
    await expectOk(server, 'PATCH', path, { instructions: { schedule: [noteAt('every:10min', 'new')] } });
    await server.app.agents.settled();
    await advance(MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(9 * MINUTE - SECOND);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await advance(SECOND);
    const [first] = await scheduledRuns(board, agent);
    expect(first!.triggerEventData).toEqual({ at: 'every:10min', entry: 0, scheduled_for: at(start, 14 * MINUTE) });
    expect(await notesOn(board)).toEqual(['new']);

    await expectOk(server, 'PATCH', path, { name: 'Renamed', instructions: { schedule: [noteAt('every:10min', 'newer')] } });
    await server.app.agents.settled();
    await advance(10 * MINUTE);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 14 * MINUTE), at(start, 24 * MINUTE)]);
    expect(await notesOn(board)).toEqual(['new', 'newer']);
  });

  it('a paused agent’s schedule does not run; resumed, it runs at its next slot', async () => {
    const board = await createBoard(server, 'Schedules');
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'tick')]);
    const path = `/boards/${board.board_uuid}/agents/${agent.id}`;
    await advance(MINUTE);
    await expectOk(server, 'POST', `${path}/pause`);
    await server.app.agents.settled();
    await advance(4 * MINUTE);
    await advance(7 * MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(0);
    await expectOk(server, 'POST', `${path}/resume`);
    await server.app.agents.settled();
    // The slots that fell while it was paused (5 and 10 minutes) are not made up at resume.
    await advance(0);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([]);
    await advance(3 * MINUTE);
    expect(slotsOf(await scheduledRuns(board, agent))).toEqual([at(start, 15 * MINUTE)]);
    expect(await notesOn(board)).toEqual(['tick']);
  });

  it('a deleted agent’s schedule rows are gone, and nothing runs', async () => {
    const board = await createBoard(server, 'Schedules');
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'ghost'), noteAt('every:30sec', 'ghost')]);
    const database = await openDatabase(server.database.url);
    try {
      expect(await database.prisma.agentSchedule.count({ where: { agentId: agent.id } })).toBe(2);
      expect((await server.api('DELETE', `/boards/${board.board_uuid}/agents/${agent.id}`)).status).toBe(204);
      await server.app.agents.settled();
      expect(await database.prisma.agentSchedule.count({ where: { agentId: agent.id } })).toBe(0);
    } finally {
      await database.close();
    }
    await advance(10 * MINUTE);
    expect(await notesOn(board)).toEqual([]);
  });
});

describe('schedules across a restart', () => {
  const servers = restartsForSuite();

  it('a run missed while stopped runs once after the restart, then keeps the 5-minute cadence; a run made before is not repeated', async () => {
    let running = await servers.restart({ clock, env: ENV });
    const key = running.apiKey;
    // Every start adds an organization of its own: keep calling as the first one.
    const api: Api = (method, path, body) => running.api(method, path, body, { 'x-api-key': key });
    const created = await api('POST', '/boards', { title: 'Restarts', expires_in_hours: 24 });
    expect(created.status).toBe(201);
    const board = created.body as CreatedBoard;
    const start = clock.now();
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'durable')], { api, on: running });
    await advance(5 * MINUTE, running);
    expect(slotsOf(await scheduledRuns(board, agent, api))).toEqual([at(start, 5 * MINUTE)]);

    running = await servers.restart({ clock, env: ENV });
    await advance(0, running);
    expect(slotsOf(await scheduledRuns(board, agent, api))).toEqual([at(start, 5 * MINUTE)]);

    await servers.stop();
    clock.advance(17 * MINUTE);
    running = await servers.restart({ clock, env: ENV });
    await advance(0, running);
    await advance(0, running);
    expect(slotsOf(await scheduledRuns(board, agent, api))).toEqual([at(start, 5 * MINUTE), at(start, 10 * MINUTE)]);
    await advance(3 * MINUTE - SECOND, running);
    expect(await scheduledRuns(board, agent, api)).toHaveLength(2);
    await advance(SECOND, running);
    expect(slotsOf(await scheduledRuns(board, agent, api))).toEqual([at(start, 5 * MINUTE), at(start, 10 * MINUTE), at(start, 25 * MINUTE)]);
    expect(await notesOn(board, api)).toEqual(['durable', 'durable', 'durable']);
  });
});

describe('boards that end', () => {
  it('an expired board’s agent runs no more scheduled actions', async () => {
    const board = await createBoard(server, 'Expiring', { expires_in_hours: 1 });
    const agent = await scheduledAgent(board, [noteAt('every:5min', 'on time')]);
    await advance(5 * MINUTE);
    expect(await scheduledRuns(board, agent)).toHaveLength(1);
    clock.advance(HOUR);
    expect(await server.app.boards.expireOverdue()).toBeGreaterThanOrEqual(1);
    await advance(5 * MINUTE);
    await advance(5 * MINUTE);
    // The board answers 410 now: the log is read from the database.
    const database = await openDatabase(server.database.url);
    try {
      expect(await database.prisma.agentAction.count({ where: { agentId: agent.id } })).toBe(1);
    } finally {
      await database.close();
    }
  });
});
