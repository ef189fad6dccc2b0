import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserForSuite, chooseTool, dragScreenBy, nextFrames, screenshot, viewportOf, type Viewport } from '../helpers/browser.js';
import { createBoard, expectOk, postFrame, serverForSuite } from '../helpers/fixtures.js';

/**
 * A square frame far from where a page opens: on a landscape screen it is narrower than the
 * view (letterboxed left and right), on a portrait one lower (letterboxed above and below).
 */
const FRAME = { x: 4000, y: 3000, width: 1000, height: 1000 };
/** Board units of rounding the camera may leave. */
const SLACK = 0.01;

type Axis = { start: 'x'; span: 'width' } | { start: 'y'; span: 'height' };
const AXES: Axis[] = [
  { start: 'x', span: 'width' },
  { start: 'y', span: 'height' },
];

/**
 * What a hard lock forbids in a view: per axis, a view smaller than the frame must lie
 * inside it and a larger one must be centred on it; and the view may be larger on one axis at
 * most (beyond letterboxing, no more than the frame is seen).
 */
function outsideTheLock(view: Viewport): string[] {
  const broken: string[] = [];
  for (const { start, span } of AXES) {
    const [from, to] = [view[start], view[start] + view[span]];
    const [frameFrom, frameTo] = [FRAME[start], FRAME[start] + FRAME[span]];
    if (view[span] <= FRAME[span] + SLACK) {
      if (from < frameFrom - SLACK || to > frameTo + SLACK) broken.push(`${start}: the view ${from}..${to} leaves the frame ${frameFrom}..${frameTo}`);
    } else if (Math.abs((from + to) / 2 - (frameFrom + frameTo) / 2) > SLACK) {
      broken.push(`${start}: the view ${from}..${to} is wider than the frame and not centred on it`);
    }
  }
  if (view.width > FRAME.width + SLACK && view.height > FRAME.height + SLACK) broken.push('zoomed out past the whole frame on both axes');
  return broken;
}

/** Asserts, after an input has been applied, that the view is where the hard lock allows. */
async function expectHeld(page: Page, after: string): Promise<Viewport> {
  await nextFrames(page);
  const view = await viewportOf(page);
  expect(outsideTheLock(view), `after ${after}: ${JSON.stringify(view)}`).toEqual([]);
  return view;
}

/** How much of the frame the view spans on its tighter axis: 1 when the whole frame just fits. */
const shownShare = (view: Viewport) => Math.min(view.width / FRAME.width, view.height / FRAME.height);

async function wheelWithCtrl(page: Page, deltaY: number, times: number): Promise<void> {
  await page.keyboard.down('Control');
  for (let i = 0; i < times; i++) await page.mouse.wheel(0, deltaY);
  await page.keyboard.up('Control');
}

async function pointAtSceneMiddle(page: Page): Promise<void> {
  const box = await page.locator('svg#scene').boundingBox();
  if (!box) throw new Error('svg#scene is not laid out');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
}

/** `hard` = the viewport cannot leave the frame bounds, whatever moves it. */
describe('browser client: a hard lock holds the view in the frame', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  /** A host, and a student on a landscape screen whose view the host hard-locked to FRAME (over REST). */
  async function lockedStudent() {
    const board = await createBoard(server, 'Hard lock');
    const frame = await postFrame(server, board.board_uuid, { name: 'Task', bounds_x: FRAME.x, bounds_y: FRAME.y, bounds_width: FRAME.width, bounds_height: FRAME.height });
    await postFrame(server, board.board_uuid, { name: 'Elsewhere', bounds_x: 0, bounds_y: 0, bounds_width: 800, bounds_height: 500 });
    const host = await browsers.open(board.access_links.host);
    const student = await browsers.open(board.access_links.guest);
    await student.page.locator('#sync-status[data-state="saved"]').waitFor({ state: 'attached' });
    await expectOk(server, 'PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, { lock_mode: 'hard' });
    // The lock mode reaches the page over the socket (frame:lock) and brings the view to the frame.
    await student.page.waitForFunction((f) => {
      const view = window.whiteboard.viewport();
      const [x, y] = [view.x + view.width / 2, view.y + view.height / 2];
      return x > f.x && x < f.x + f.width && y > f.y && y < f.y + f.height;
    }, FRAME);
    await pointAtSceneMiddle(student.page);
    return { host, student: student.page };
  }

  it('shows the whole frame letterboxed, and keeps a closer view inside it through the wheel', async () => {
    const { student } = await lockedStudent();
    const locked = await expectHeld(student, 'the lock');
    // The whole frame: it fills the screen's height, letterboxed left and right.
    expect(shownShare(locked)).toBeCloseTo(1, 3);
    expect(locked.width).toBeGreaterThan(FRAME.width);
    for (const [dx, dy] of [[3000, 0], [0, 3000], [-6000, 0], [0, -6000]] as const) {
      await student.mouse.wheel(dx, dy);
      await expectHeld(student, `a wheel of ${dx},${dy} with the whole frame shown`);
    }

    // Zoomed in, the view is smaller than the frame both ways: it moves, up to the frame's edges.
    await wheelWithCtrl(student, -200, 3);
    expect(shownShare(await expectHeld(student, 'zooming in'))).toBeLessThan(0.7);
    await student.mouse.wheel(5000, 5000);
    const corner = await expectHeld(student, 'a wheel towards the bottom right');
    expect(corner.x + corner.width).toBeCloseTo(FRAME.x + FRAME.width, 1);
    expect(corner.y + corner.height).toBeCloseTo(FRAME.y + FRAME.height, 1);
    await student.mouse.wheel(-10000, -10000);
    const opposite = await expectHeld(student, 'a wheel towards the top left');
    expect(opposite.x).toBeCloseTo(FRAME.x, 1);
    expect(opposite.y).toBeCloseTo(FRAME.y, 1);
    await screenshot(student, 'hard-lock-landscape-corner');
  });

  it('keeps a closer view inside the frame through drag and arrows, and never holds the host', async () => {
    const { host, student } = await lockedStudent();
    await wheelWithCtrl(student, -200, 3);
    await chooseTool(student, 'hand');
    for (const [dx, dy] of [[-700, -500], [700, 0], [0, 600], [900, 700]] as const) {
      await dragScreenBy(student, dx, dy);
      await expectHeld(student, `a drag of ${dx},${dy}`);
    }
    for (const key of ['ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown']) {
      for (let i = 0; i < 8; i++) await student.keyboard.press(`Shift+${key}`);
      await expectHeld(student, `Shift+${key} eight times`);
    }

    // The host is never held: a wheel takes the host's view off the frame.
    await pointAtSceneMiddle(host.page);
    await host.page.mouse.wheel(0, 20000);
    await nextFrames(host.page);
    expect(outsideTheLock(await viewportOf(host.page))).not.toEqual([]);
  });

  it('zooms out no further than the whole frame, with Ctrl+wheel or the "-" key', async () => {
    const { student } = await lockedStudent();
    await wheelWithCtrl(student, -200, 3);
    await student.mouse.wheel(-2000, 1000);
    await wheelWithCtrl(student, 400, 8);
    const zoomedOut = await expectHeld(student, 'zooming out with Ctrl+wheel');
    expect(shownShare(zoomedOut), 'zooming out stops where the whole frame fits').toBeCloseTo(1, 3);
    for (let i = 0; i < 4; i++) await student.keyboard.press('-');
    expect(shownShare(await expectHeld(student, 'zooming out with "-"'))).toBeCloseTo(1, 3);
  });

  it('keeps the whole frame shown, centred the other way, after a resize to another aspect ratio', async () => {
    const { student } = await lockedStudent();
    // A portrait window: now the frame fills the width and is letterboxed above and below.
    await student.setViewportSize({ width: 600, height: 1000 });
    await student.waitForFunction((f) => window.whiteboard.viewport().width <= f.width + 0.01, FRAME);
    const portrait = await expectHeld(student, 'a resize to portrait');
    expect(portrait.height).toBeGreaterThan(FRAME.height);
    expect(shownShare(portrait), 'the whole frame stays shown after the resize').toBeCloseTo(1, 3);
    await pointAtSceneMiddle(student);
    for (const [dx, dy] of [[0, 3000], [3000, 0], [0, -6000]] as const) {
      await student.mouse.wheel(dx, dy);
      await expectHeld(student, `a wheel of ${dx},${dy} in portrait`);
    }
    await wheelWithCtrl(student, 400, 4);
    expect(shownShare(await expectHeld(student, 'zooming out in portrait'))).toBeCloseTo(1, 3);
    await screenshot(student, 'hard-lock-portrait');

    // Zoomed in and back to landscape: the view stays inside the frame.
    await wheelWithCtrl(student, -200, 3);
    await student.setViewportSize({ width: 1280, height: 800 });
    await student.waitForFunction(() => window.whiteboard.viewport().width > window.whiteboard.viewport().height);
    await expectHeld(student, 'a resize back to landscape, zoomed in');
  });
});
