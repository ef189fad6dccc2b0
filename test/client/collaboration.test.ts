import { describe, expect, it } from 'vitest';
import {
  browserForSuite,
  chooseTool,
  createTextObject,
  dragThrough,
  objectsOf,
  openFramesPanel,
  roleOf,
  viewportOf,
  waitForObjectText,
  waitForSceneText,
  type Participant,
  type Point,
} from '../helpers/browser.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';

/**
 * A host and a guest, each in a browser of their own, see each other's
 * drawings live; objects written over REST appear in both; an object type the client does not
 * know is still shown; ending the session tells the guest why it was disconnected.
 */
describe('browser client: collaboration', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  /** A board open in two browsers: the host's link in one, the guest's in the other. */
  async function hostAndGuest() {
    const board = await createBoard(server, 'Collaboration');
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    return { board, host, guest };
  }

  /** A board point in the middle of what the page shows (where a click surely lands on the board). */
  async function middleOf(participant: Participant, offset: Point = { x: 0, y: 0 }): Promise<Point> {
    const view = await viewportOf(participant.page);
    return { x: view.x + view.width / 2 + offset.x, y: view.y + view.height / 2 + offset.y };
  }

  it('opens the host link as host and the guest link as guest', async () => {
    const { host, guest } = await hostAndGuest();
    expect(await roleOf(host.page)).toBe('host');
    expect(await roleOf(guest.page)).toBe('guest');
  });

  it("shows a sticky written in one browser, with its text, in the other's", async () => {
    const { host, guest } = await hostAndGuest();
    const written = await createTextObject(host.page, await middleOf(host), 'Hello from the host');
    expect(written.type).toBe('sticky');

    const seen = await waitForObjectText(guest.page, 'Hello from the host');
    expect(seen).toMatchObject({ id: written.id, type: 'sticky' });
    await waitForSceneText(guest.page, 'Hello from the host');
    // The guest's side writes too: the host sees the guest's sticky.
    await createTextObject(guest.page, await middleOf(guest, { x: -150, y: -100 }), 'Reply from the guest');
    await waitForSceneText(host.page, 'Reply from the guest');
  });

  it("shows ink drawn with the guest's pen in the host's browser", async () => {
    const { host, guest } = await hostAndGuest();
    await chooseTool(guest.page, 'pen');
    const start = await middleOf(guest, { x: -100, y: -50 });
    await dragThrough(guest.page, [start, { x: start.x + 60, y: start.y + 40 }, { x: start.x + 140, y: start.y - 20 }, { x: start.x + 200, y: start.y + 30 }]);

    const ink = await guest.page.waitForFunction(() => window.whiteboard.objects().find((o) => o.type === 'ink'));
    const inkId = ((await ink.jsonValue()) as { id: string }).id;
    await host.page.waitForFunction((id) => window.whiteboard.objects().some((o) => o.id === id && o.type === 'ink'), inkId);
    await host.page.locator(`#scene g.object[data-type="ink"][data-object-id="${inkId}"]`).waitFor({ state: 'attached' });
  });

  it('shows an object created over REST in both browsers', async () => {
    const { board, host, guest } = await hostAndGuest();
    const view = await viewportOf(guest.page);
    const position = { x: Math.round(view.x + view.width / 3), y: Math.round(view.y + view.height / 3) };
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'Posted over REST' }, position });
    expect(created.status).toBe(201);

    for (const participant of [host, guest]) {
      const seen = await waitForObjectText(participant.page, 'Posted over REST');
      expect(seen.id).toBe(created.body.id);
      await waitForSceneText(participant.page, 'Posted over REST');
      await participant.page.locator(`#scene g.object[data-object-id="${created.body.id}"]`).waitFor({ state: 'attached' });
    }
  });

  it('shows an object of a type it does not know as a box labelled with the type', async () => {
    const { board, host, guest } = await hostAndGuest();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, {
      type: 'mystery-gadget',
      data: { dial: 7 },
      position: { x: 40, y: 40 },
      width: 200,
      height: 120,
    });
    expect(created.status).toBe(201);

    for (const participant of [host, guest]) {
      const box = participant.page.locator(`#scene g.object.unknown[data-object-id="${created.body.id}"]`);
      await box.waitFor({ state: 'attached' });
      expect(await box.getAttribute('data-type')).toBe('mystery-gadget');
      expect(await box.textContent()).toContain('mystery-gadget');
      const listed = (await objectsOf(participant.page)).find((o) => o.id === created.body.id);
      expect(listed?.type).toBe('mystery-gadget');
    }
  });

  it('tells the guest the session ended when the host ends it from the frames panel', async () => {
    const { host, guest } = await hostAndGuest();
    await expectBannerHidden(guest);
    await openFramesPanel(host.page);
    await host.page.locator('#frames-panel [data-action="end-session"]').click();
    await expectSessionEndedBanner(guest);
  });

  it('tells the guest the session ended when it is ended over REST', async () => {
    const { board, guest } = await hostAndGuest();
    await expectBannerHidden(guest);
    const ended = await server.api('POST', `/boards/${board.board_uuid}/end-session`);
    expect(ended.status).toBe(200);
    await expectSessionEndedBanner(guest);
  });

  it('keeps the end-session button away from the guest', async () => {
    const { guest } = await hostAndGuest();
    expect(await guest.page.locator('#frames-panel [data-action="end-session"]').isVisible()).toBe(false);
  });
});

async function expectBannerHidden(participant: Participant): Promise<void> {
  expect(await participant.page.locator('#connection-banner').isVisible()).toBe(false);
}

async function expectSessionEndedBanner(participant: Participant): Promise<void> {
  const banner = participant.page.locator('#connection-banner[data-reason="session-ended"]');
  await banner.waitFor({ state: 'visible' });
  expect(await participant.page.evaluate(() => window.whiteboard.connection())).toBe('closed:session-ended');
}
