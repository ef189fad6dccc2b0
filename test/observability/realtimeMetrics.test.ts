import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBoard, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';
import { familyOf, scrape, type Scrape } from './scrape.js';

/**
 * `GET /metrics` against the real service: the exposition itself, and the realtime metrics
 * moving as real providers connect, edit and leave.
 */
const suite = serverForSuite();
const { server } = suite;

const OWN_FAMILIES: Record<string, string> = {
  whiteboard_realtime_sockets_open: 'gauge',
  whiteboard_realtime_documents_loaded: 'gauge',
  whiteboard_realtime_updates_total: 'counter',
  whiteboard_realtime_update_fanout_total: 'counter',
  whiteboard_update_journal_durable_seconds: 'histogram',
  whiteboard_update_journal_commit_failures_total: 'counter',
  whiteboard_document_load_seconds: 'histogram',
  whiteboard_webhook_deliveries_pending: 'gauge',
  whiteboard_webhook_attempt_seconds: 'histogram',
  whiteboard_agent_actions_total: 'counter',
  whiteboard_agent_tokens_total: 'counter',
  whiteboard_http_request_duration_seconds: 'histogram',
};

const metrics = () => scrape(server.url);
const sockets = (s: Scrape) => s.value('whiteboard_realtime_sockets_open');
const documents = (s: Scrape) => s.value('whiteboard_realtime_documents_loaded');
const updates = (s: Scrape, source: string) => s.value('whiteboard_realtime_updates_total', { source });

async function connected(board: CreatedBoard, name = board.board_uuid): Promise<BoardClient> {
  const client = suite.connect(tokenOf(board.access_links.host), name);
  await client.synced();
  return client;
}

describe('the exposition', () => {
  it('is the Prometheus text format: every family has HELP and TYPE, ours are prefixed whiteboard_, the process defaults are there', async () => {
    const scraped = await metrics();
    for (const sample of scraped.samples) {
      const family = familyOf(sample.name, scraped.type);
      expect(scraped.type.has(family), `TYPE of ${sample.name}`).toBe(true);
      expect(scraped.help.get(family), `HELP of ${sample.name}`).toMatch(/\S/);
    }
    for (const [family, type] of Object.entries(OWN_FAMILIES)) expect(scraped.type.get(family), family).toBe(type);
    const ours = [...scraped.type.keys()].filter((family) => !/^(process|nodejs)_/.test(family));
    expect(ours.sort()).toEqual(Object.keys(OWN_FAMILIES).sort());
    // prom-client's defaults: CPU, memory, event-loop lag (with its monitorEventLoopDelay percentiles), GC.
    for (const family of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_gc_duration_seconds']) {
      expect(scraped.type.has(family), family).toBe(true);
    }
  });
});

describe('realtime', () => {
  it('open sockets and loaded documents follow real providers connecting and leaving', async () => {
    const board = await createBoard(server, 'Metrics');
    const before = await metrics();
    const first = await connected(board);
    const second = await connected(board);
    const during = await metrics();
    expect(sockets(during) - sockets(before)).toBe(2);
    expect(documents(during) - documents(before)).toBe(1);
    first.destroy();
    second.destroy();
    await eventually(async () => {
      const after = await metrics();
      return sockets(after) === sockets(before) && documents(after) === documents(before);
    }, 10_000);
  });

  it('an edit over a socket counts as a socket update, a durable write, and its fan-out to every socket on the document', async () => {
    const board = await createBoard(server, 'Metrics');
    const [writer] = [await connected(board), await connected(board)];
    const before = await metrics();
    addObject(writer.doc, { id: randomUUID() });
    await writer.saved();
    const after = await metrics();
    expect(updates(after, 'socket') - updates(before, 'socket')).toBe(1);
    expect(after.value('whiteboard_update_journal_durable_seconds_count') - before.value('whiteboard_update_journal_durable_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(after.value('whiteboard_update_journal_durable_seconds_sum')).toBeGreaterThan(before.value('whiteboard_update_journal_durable_seconds_sum'));
    // Hocuspocus broadcasts the update to both connections of the document (its writer too).
    expect(after.value('whiteboard_realtime_update_fanout_total') - before.value('whiteboard_realtime_update_fanout_total')).toBe(2);
    expect(after.value('whiteboard_update_journal_commit_failures_total')).toBe(0);
  });

  it('a REST write to a loaded document counts as a server update and is made durable', async () => {
    const board = await createBoard(server, 'Metrics');
    await connected(board);
    const before = await metrics();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'REST' }, position: { x: 1, y: 2 } });
    expect(created.status).toBe(201);
    const after = await metrics();
    expect(updates(after, 'server') - updates(before, 'server')).toBeGreaterThanOrEqual(1);
    expect(updates(after, 'socket')).toBe(updates(before, 'socket'));
    expect(after.value('whiteboard_update_journal_durable_seconds_count') - before.value('whiteboard_update_journal_durable_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('loading a document from the store is timed', async () => {
    const board = await createBoard(server, 'Metrics', { initial_objects: [{ type: 'sticky', data: { text: 'stored' }, position: { x: 0, y: 0 } }] });
    // Writing the initial objects loaded the document; once it is unloaded, a socket loads it again.
    await eventually(async () => documents(await metrics()) === 0, 10_000);
    const before = await metrics();
    await connected(board);
    const after = await metrics();
    const loads = (s: Scrape) => s.value('whiteboard_document_load_seconds_count', { outcome: 'loaded' });
    expect(loads(after) - loads(before)).toBe(1);
    expect(after.value('whiteboard_document_load_seconds_sum', { outcome: 'loaded' })).toBeGreaterThan(before.value('whiteboard_document_load_seconds_sum', { outcome: 'loaded' }));
  });
});
