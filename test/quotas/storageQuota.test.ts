import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';

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
});
