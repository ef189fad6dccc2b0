import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/** `storage_org` and `storage_board`: bytes of the boards' stored documents, in total and for the largest board. */
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const { server } = serverForSuite({ clock });

describe('the storage quotas', () => {
  it('measures the bytes written to boards: the organization in total and its largest board', async () => {
    const { api } = await organizationCaller(server, 'starter');
    const storage = async () => {
      const read = await api('GET', '/quota');
      expect(read.status).toBe(200);
      const of = (type: string) => read.body.quotas.find((entry: { type: string }) => entry.type === type);
      return { org: of('storage_org'), board: of('storage_board') };
    };
    /** Writes `count` objects each carrying 1,000 characters of text: at least 1,000 bytes each however the document is stored. */
    const writeObjects = async (boardId: string, count: number) => {
      for (let index = 0; index < count; index += 1) {
        const text = `${boardId}-${index}-`.padEnd(1_000, String(index % 10));
        const written = await api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text }, position: { x: index, y: 0 } });
        expect(written.status).toBe(201);
      }
    };

    const empty = await storage();
    expect(empty.org).toMatchObject({ current: 0, limit: 1_073_741_824 });
    expect(empty.board).toMatchObject({ current: 0 });
    expect(empty.org).not.toHaveProperty('resetAt');
    expect(empty.board).not.toHaveProperty('resetAt');

    const first = await api('POST', '/boards', { title: 'Notes' });
    const second = await api('POST', '/boards', { title: 'More notes' });
    await writeObjects(first.body.board_uuid, 5);
    const one = await storage();
    expect(one.org.current).toBeGreaterThanOrEqual(5_000);
    expect(one.board.current).toBeGreaterThanOrEqual(5_000);
    expect(one.board.current).toBeLessThanOrEqual(one.org.current);
    expect(one.org.remaining).toBe(one.org.limit - one.org.current);

    // Two boards hold data: the largest is a part of the total, not all of it.
    await writeObjects(second.body.board_uuid, 2);
    const two = await storage();
    expect(two.org.current).toBeGreaterThanOrEqual(7_000);
    expect(two.board.current).toBeGreaterThanOrEqual(5_000);
    expect(two.board.current).toBeLessThan(two.org.current);

    await writeObjects(first.body.board_uuid, 10);
    const three = await storage();
    expect(three.board.current).toBeGreaterThanOrEqual(15_000);
    expect(three.org.current).toBeGreaterThanOrEqual(17_000);
    expect(three.board.current).toBeLessThan(three.org.current);
  });

  it('counts exactly the bytes of each board’s documents, its zone documents included, and nothing of another organization', async () => {
    const [ours, theirs] = [await organizationCaller(server, 'starter'), await organizationCaller(server, 'starter')];
    const zoned = (await ours.api('POST', '/boards', { title: 'With a zone' })).body.board_uuid as string;
    const plain = (await ours.api('POST', '/boards', { title: 'Plain' })).body.board_uuid as string;
    const elsewhere = (await theirs.api('POST', '/boards', { title: 'Another organization' })).body.board_uuid as string;
    const zone = await ours.api('POST', `/boards/${zoned}/frames`, { name: 'Zone', bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'student-1' });
    expect(zone.status).toBe(201);
    const write = async (api: typeof ours.api, boardId: string, x: number, count: number) => {
      for (let index = 0; index < count; index += 1) {
        const text = `${boardId}-${x}-${index}`.padEnd(800, 'z');
        expect((await api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text }, position: { x, y: 100 + index } })).status).toBe(201);
      }
    };
    await write(ours.api, zoned, 100, 3); // inside the zone: its own document
    await write(ours.api, zoned, 900, 2); // outside: the board's document
    await write(ours.api, plain, 100, 1);
    await write(theirs.api, elsewhere, 100, 6);

    // What is stored, read row by row: documents belong to a board by the start of their name.
    const database = await openDatabase(server.database.url);
    const storedBytes = async (boardId: string) => {
      const where = { name: { startsWith: boardId } };
      const snapshots = await database.prisma.documentSnapshot.findMany({ where, select: { name: true, state: true } });
      const updates = await database.prisma.documentUpdate.findMany({ where, select: { name: true, update: true } });
      return {
        bytes: [...snapshots.map((row) => row.state.length), ...updates.map((row) => row.update.length)].reduce((sum, length) => sum + length, 0),
        zoneRows: [...snapshots, ...updates].filter((row) => row.name.includes('/zones/')).length,
      };
    };
    try {
      const measured = await eventually(async () => {
        const read = await ours.api('GET', '/quota');
        const current = (type: string) => (read.body.quotas as Array<{ type: string; current: number }>).find((entry) => entry.type === type)!.current;
        const [zonedBoard, plainBoard] = [await storedBytes(zoned), await storedBytes(plain)];
        const expected = { org: zonedBoard.bytes + plainBoard.bytes, board: Math.max(zonedBoard.bytes, plainBoard.bytes) };
        const reported = { org: current('storage_org'), board: current('storage_board') };
        return JSON.stringify(reported) === JSON.stringify(expected) ? { reported, zonedBoard } : null;
      });
      expect(measured!.zonedBoard.zoneRows).toBeGreaterThan(0);
      expect(measured!.reported.board).toBeGreaterThan(4_000);
      const single = await ours.api('GET', '/quota/storage_board');
      expect(single.body.current).toBe(measured!.reported.board);
    } finally {
      await database.close();
    }
  });
});
