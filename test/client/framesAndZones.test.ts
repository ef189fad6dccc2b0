import { describe, expect, it } from 'vitest';
import {
  browserForSuite,
  chooseTool,
  createTextObject,
  isShown,
  nextFrames,
  objectsOf,
  openFramesPanel,
  sceneHasText,
  viewportOf,
  waitForObjectText,
  waitForSceneText,
  type Participant,
  type Viewport,
} from '../helpers/browser.js';
import { createBoard, postFrame, serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';
import type { Page } from 'playwright-core';

interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Far from the origin, where no page opens by itself: being there means being brought there. */
const FAR_FRAME: Bounds = { x: 4000, y: 3000, width: 800, height: 500 };

const centreOf = (view: Viewport) => ({ x: view.x + view.width / 2, y: view.y + view.height / 2 });
const centreInside = (view: Viewport, frame: Bounds) => {
  const centre = centreOf(view);
  return centre.x >= frame.x && centre.x <= frame.x + frame.width && centre.y >= frame.y && centre.y <= frame.y + frame.height;
};

/** Waits until the page's viewport is centred inside (or, with `inside` false, outside) a frame. */
async function waitForViewport(page: Page, frame: Bounds, inside = true): Promise<void> {
  await page.waitForFunction(
    ({ frame, inside }) => {
      const view = window.whiteboard.viewport();
      const x = view.x + view.width / 2;
      const y = view.y + view.height / 2;
      const within = x >= frame.x && x <= frame.x + frame.width && y >= frame.y && y <= frame.y + frame.height;
      return within === inside;
    },
    { frame, inside },
  );
}

/** Waits until the viewport stops moving (an animation ended): the same bounds over several frames. */
async function waitForStillViewport(page: Page): Promise<void> {
  let previous = '';
  await eventually(async () => {
    await nextFrames(page);
    const now = JSON.stringify(await viewportOf(page));
    const still = now === previous;
    previous = now;
    return still;
  }, 10_000);
}

/**
 * A pan with the mouse, kept inside the scene (so no pointer leaves it): from one side of the
 * scene's middle to the other by `share` of its size. The viewport is read after every step.
 */
async function panSamplingViewport(page: Page, share: { x: number; y: number }): Promise<Viewport[]> {
  const box = await page.locator('svg#scene').boundingBox();
  if (!box) throw new Error('svg#scene is not laid out');
  const dx = box.width * share.x;
  const dy = box.height * share.y;
  const from = { x: box.x + box.width / 2 - dx / 2, y: box.y + box.height / 2 - dy / 2 };
  const samples: Viewport[] = [];
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let step = 1; step <= 10; step++) {
    await page.mouse.move(from.x + (dx * step) / 10, from.y + (dy * step) / 10);
    await nextFrames(page);
    samples.push(await viewportOf(page));
  }
  await page.mouse.up();
  await nextFrames(page);
  samples.push(await viewportOf(page));
  return samples;
}

const frameControl = (participant: Participant, frameId: string, control: string) =>
  participant.page.locator(`#frames-panel li[data-frame-id="${frameId}"] ${control}`);

describe('browser client: frames and zones', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  async function boardWithFarFrame() {
    const board = await createBoard(server, 'Frames');
    const frame = await postFrame(server, board.board_uuid, {
      name: 'Station two',
      bounds_x: FAR_FRAME.x,
      bounds_y: FAR_FRAME.y,
      bounds_width: FAR_FRAME.width,
      bounds_height: FAR_FRAME.height,
    });
    // A second frame at the origin: the page opens showing all content, so its view is centred between the two.
    await postFrame(server, board.board_uuid, { name: 'Station one', bounds_x: 0, bounds_y: 0, bounds_width: 800, bounds_height: 500 });
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    // Synced first, so the page's own first fit to the content cannot land after the host's navigation.
    await guest.page.locator('#sync-status[data-state="saved"]').waitFor({ state: 'attached' });
    expect(centreInside(await viewportOf(guest.page), FAR_FRAME)).toBe(false);
    await openFramesPanel(host.page);
    return { board, frameId: frame.id as string, host, guest };
  }

  const frameLockMode = async (boardId: string, frameId: string) => (await server.api('GET', `/boards/${boardId}/frames/${frameId}`)).body.lock_mode;

  it("brings the guest's view to the frame the host navigates to, and a hard lock holds it there", async () => {
    const { board, frameId, host, guest } = await boardWithFarFrame();
    await frameControl(host, frameId, '[data-action="navigate"]').click();
    await waitForViewport(guest.page, FAR_FRAME);
    // The navigation glides (smooth): the pan below starts once the view has come to rest.
    await waitForStillViewport(guest.page);

    // Without a lock the guest may wander off: the same pan that the lock must stop moves the view out.
    await chooseTool(guest.page, 'hand');
    await panSamplingViewport(guest.page, { x: -0.8, y: -0.8 });
    await waitForViewport(guest.page, FAR_FRAME, false);

    await frameControl(host, frameId, 'select[data-field="lock_mode"]').selectOption('hard');
    await eventually(async () => (await frameLockMode(board.board_uuid, frameId)) === 'hard');
    await waitForViewport(guest.page, FAR_FRAME);

    const dragged = await panSamplingViewport(guest.page, { x: -0.8, y: -0.8 });
    const escaped = dragged.filter((view) => !centreInside(view, FAR_FRAME));
    expect(escaped, 'the hard lock let a drag take the view out of the frame').toEqual([]);

    const scene = await guest.page.locator('svg#scene').boundingBox();
    await guest.page.mouse.move(scene!.x + scene!.width / 2, scene!.y + scene!.height / 2);
    for (const [dx, dy] of [[0, 3000], [3000, 0], [0, -6000]] as const) {
      await guest.page.mouse.wheel(dx, dy);
      await nextFrames(guest.page);
      expect(centreInside(await viewportOf(guest.page), FAR_FRAME), `the hard lock let a wheel of ${dx},${dy} out`).toBe(true);
    }
  });

  it('warns the guest who leaves a soft-locked frame, and stops warning back inside', async () => {
    const { board, frameId, host, guest } = await boardWithFarFrame();
    await frameControl(host, frameId, 'select[data-field="lock_mode"]').selectOption('soft');
    await eventually(async () => (await frameLockMode(board.board_uuid, frameId)) === 'soft');
    await frameControl(host, frameId, '[data-action="navigate"]').click();
    await waitForViewport(guest.page, FAR_FRAME);
    expect(await isShown(guest.page, '#lock-warning')).toBe(false);

    await chooseTool(guest.page, 'hand');
    await panSamplingViewport(guest.page, { x: 0.8, y: 0.8 });
    // A soft lock does not hold the view: the guest is out, and told so.
    await waitForViewport(guest.page, FAR_FRAME, false);
    await guest.page.locator('#lock-warning').waitFor({ state: 'visible' });

    await panSamplingViewport(guest.page, { x: -0.8, y: -0.8 });
    await waitForViewport(guest.page, FAR_FRAME);
    await guest.page.locator('#lock-warning').waitFor({ state: 'hidden' });
  });
});

describe('browser client: student zones', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  /**
   * Three zones side by side near the origin, where a page opens: Anna's (the student under
   * test), Ben's (hidden: Anna must never get it) and Cleo's (visible: it reaches Anna, so the
   * channel that would have carried Ben's content is shown to work).
   */
  async function classroom() {
    const board = await createBoard(server, 'Zones');
    const zone = (name: string, user: string, x: number, visibility: string) =>
      postFrame(server, board.board_uuid, { name, bounds_x: x, bounds_y: 0, bounds_width: 250, bounds_height: 300, assigned_user_id: user, zone_visibility: visibility });
    const anna = await zone('Anna', 'student-anna', 0, 'hidden');
    const ben = await zone('Ben', 'student-ben', 270, 'hidden');
    const cleo = await zone('Cleo', 'student-cleo', 540, 'visible');
    const post = async (text: string, x: number) => {
      const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text }, position: { x, y: 100 } });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    const ids = { anna: await post("Anna's notes", 30), ben: await post("Ben's secret", 300), cleo: await post("Cleo's poster", 570) };
    const link = await server.personalLink(board.board_uuid, 'student-anna', { user_name: 'Anna' });
    return { board, zones: { anna, ben, cleo }, ids, link: link.link };
  }

  it("never shows a student another student's hidden zone, while the host sees every zone", async () => {
    const { board, ids, link } = await classroom();
    const student = await browsers.open(link);
    // Her own zone and the visible one arrive: whatever would carry Ben's zone has had its chance.
    await waitForSceneText(student.page, "Anna's notes");
    await waitForSceneText(student.page, "Cleo's poster");

    const shown = await objectsOf(student.page);
    expect(shown.map((o) => o.id)).not.toContain(ids.ben);
    expect(shown.some((o) => o.text?.includes("Ben's secret"))).toBe(false);
    expect(await sceneHasText(student.page, "Ben's secret")).toBe(false);
    expect(await student.page.locator(`[data-object-id="${ids.ben}"]`).count()).toBe(0);
    expect(await student.page.content()).not.toContain("Ben's secret");

    const host = await browsers.open(board.access_links.host);
    for (const text of ["Anna's notes", "Ben's secret", "Cleo's poster"]) await waitForSceneText(host.page, text);
  });

  it('lets a student write in her own zone through the page', async () => {
    const { board, zones, link } = await classroom();
    const student = await browsers.open(link);
    const notes = await waitForObjectText(student.page, "Anna's notes");

    const written = await createTextObject(student.page, { x: 125, y: 230 }, 'Written by Anna');
    // It lives where her zone's content lives (the zone's document), not in the board's own.
    expect(notes.document).toContain(zones.anna.id);
    expect(written.document).toBe(notes.document);

    const stored = await eventually(async () => {
      const objects = (await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects as any[];
      return objects.find((o) => o.data?.text === 'Written by Anna');
    }, 10_000);
    const { bounds_x: x, bounds_y: y, bounds_width: width, bounds_height: height } = zones.anna;
    expect(stored.position.x).toBeGreaterThanOrEqual(x);
    expect(stored.position.x).toBeLessThanOrEqual(x + width);
    expect(stored.position.y).toBeGreaterThanOrEqual(y);
    expect(stored.position.y).toBeLessThanOrEqual(y + height);
  });
});
