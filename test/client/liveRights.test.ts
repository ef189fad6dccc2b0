import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  browserForSuite,
  connectionOf,
  databaseNames,
  objectsOf,
  sceneHasText,
  waitForSceneText,
  type Participant,
} from '../helpers/browser.js';
import { createBoard, postFrame, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { eventually, request } from '../helpers/testServer.js';

/** Waits until the page's socket says `kind` (window.whiteboard.connection()). */
const waitForConnection = (page: Page, kind: string) => page.waitForFunction((wanted) => window.whiteboard.connection() === wanted, kind);

/** Expects the connection banner to say, in words, why the server closed the socket. */
async function expectBanner(participant: Participant, reason: string): Promise<void> {
  const banner = participant.page.locator(`#connection-banner[data-reason="${reason}"]`);
  await banner.waitFor({ state: 'visible' });
  expect((await banner.innerText()).trim().length).toBeGreaterThan(10);
  expect(await connectionOf(participant.page)).toBe(`closed:${reason}`);
}

/**
 * Rights that change while a page is open: a zone hidden under a student's eyes,
 * an agent joining the participants, and the socket closes the server explains (full, deleted).
 */
describe('browser client: rights that change live', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  /** Two students' zones side by side, visible to each other, each with a note; Cleo's stays visible throughout. */
  async function twoVisibleZones() {
    const board = await createBoard(server, 'Live zones');
    const zone = (name: string, user: string, x: number) =>
      postFrame(server, board.board_uuid, { name, bounds_x: x, bounds_y: 0, bounds_width: 250, bounds_height: 300, assigned_user_id: user, zone_visibility: 'visible' });
    const ben = await zone('Ben', 'student-ben', 0);
    const cleo = await zone('Cleo', 'student-cleo', 270);
    const post = async (text: string, x: number) => {
      const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text }, position: { x, y: 100 } });
      expect(created.status).toBe(201);
      expect(created.body.zone_id).toBeTruthy();
      return created.body.id as string;
    };
    return { board, ben, cleo, post };
  }

  it("takes a zone that becomes hidden off a student's screen and device", async () => {
    const { board, ben, cleo, post } = await twoVisibleZones();
    const benNote = await post("Ben's draft", 30);
    await post("Cleo's poster", 300);
    const link = await server.personalLink(board.board_uuid, 'student-anna', { user_name: 'Anna' });
    const anna = await browsers.open(link.link);
    await waitForSceneText(anna.page, "Ben's draft");
    await waitForSceneText(anna.page, "Cleo's poster");
    const benDatabase = `:${board.board_uuid}/zones/${ben.id}`;
    expect((await databaseNames(anna.page)).some((name) => name.endsWith(benDatabase))).toBe(true);

    const hidden = await server.api('PATCH', `/boards/${board.board_uuid}/frames/${ben.id}`, { zone_visibility: 'hidden' });
    expect(hidden.status).toBe(200);

    await anna.page.waitForFunction((id) => !window.whiteboard.objects().some((o) => o.id === id), benNote);
    expect(await anna.page.locator(`#scene [data-object-id="${benNote}"]`).count()).toBe(0);
    expect(await sceneHasText(anna.page, "Ben's draft")).toBe(false);
    await eventually(async () => !(await databaseNames(anna.page)).some((name) => name.endsWith(benDatabase)));

    // Written after the change, in both zones: Cleo's arrives, so Ben's had its chance to come too.
    const later = await post("Ben's second draft", 60);
    await post("Cleo's caption", 330);
    await waitForSceneText(anna.page, "Cleo's caption");
    expect((await objectsOf(anna.page)).map((o) => o.id)).not.toContain(later);
    expect(await anna.page.content()).not.toContain("Ben's second draft");
    // Cleo's zone is still Anna's to read, and still on her device.
    expect((await databaseNames(anna.page)).some((name) => name.endsWith(`:${board.board_uuid}/zones/${cleo.id}`))).toBe(true);
  });

  it('lists a visible agent among the people in the host page', async () => {
    const board = await createBoard(server, 'Agent');
    const host = await browsers.open(board.access_links.host);
    await waitForConnection(host.page, 'connected');
    await host.page.locator('#people li.self').waitFor({ state: 'attached' });
    expect(await host.page.locator('#people li.agent').count()).toBe(0);

    const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, {
      name: 'Fractions tutor',
      persona: 'tutor',
      visibility: 'visible',
      instructions: { description: 'Gives hints' },
    });
    expect(created.status).toBe(201);

    const agent = host.page.locator('#people li.agent', { hasText: 'Fractions tutor' });
    await agent.waitFor({ state: 'visible' });
    expect(await agent.getAttribute('data-user-id')).toBe(`agent:${created.body.id}`);
  });

  it('tells a guest who finds the board full, in words, with a way to try again', async () => {
    const board = await createBoard(server, 'Full', { config: { max_participants: 1 } });
    const first = await browsers.open(`${board.access_links.guest}&user_name=First`);
    await waitForConnection(first.page, 'connected');
    // The one seat is taken: a host is let in all the same.
    const host = await browsers.open(board.access_links.host);
    await waitForConnection(host.page, 'connected');

    const second = await browsers.open(`${board.access_links.guest}&user_name=Second`, { waitForReady: false });
    await expectBanner(second, 'board-full');
    await second.page.locator('#connection-banner button[data-action="reconnect"]').waitFor({ state: 'visible' });
    // Nobody already in was pushed out to make room.
    expect(await connectionOf(first.page)).toBe('connected');
    expect(await connectionOf(host.page)).toBe('connected');
  });

  it('tells the guest, in words, that the host deleted the board', async () => {
    const board = await createBoard(server, 'Deleted');
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    await waitForConnection(guest.page, 'connected');
    expect(await guest.page.locator('#connection-banner').isVisible()).toBe(false);

    // As the host, with its own link's token (no API key).
    const deleted = await request(server.url, 'DELETE', `/api/v1/boards/${board.board_uuid}`, undefined, { authorization: `Bearer ${tokenOf(board.access_links.host)}` });
    expect(deleted.status).toBe(204);

    await expectBanner(guest, 'board-deleted');
    // A deleted board is not retried: no button offers it.
    expect(await guest.page.locator('#connection-banner button[data-action="reconnect"]').count()).toBe(0);
    await expectBanner(host, 'board-deleted');
  });
});
