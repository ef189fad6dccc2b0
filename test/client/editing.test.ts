import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  browserForSuite,
  chooseTool,
  clickAt,
  createTextObject,
  dragScreen,
  objectCentre,
  objectsOf,
  toScreen,
  waitForObjectText,
  waitForSceneText,
  type Point,
  pointAt,
  pixelsPerUnit,
} from '../helpers/browser.js';
import { QUIZ_SCHEMA, createBoard, serverForSuite } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/testServer.js';
import { eventually } from '../helpers/testServer.js';

/** The position the scene draws an object at (its `translate(x y)`), in board units. */
async function drawnPosition(page: Page, objectId: string): Promise<Point | null> {
  const transform = await page.locator(`#scene g.object[data-object-id="${objectId}"]`).getAttribute('transform');
  const match = /translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)/.exec(transform ?? '');
  return match ? { x: Number(match[1]), y: Number(match[2]) } : null;
}

/** Leaves whatever field has the focus by clicking an empty spot of the board with the select tool. */
async function focusBoard(page: Page, emptySpot: Point): Promise<void> {
  await chooseTool(page, 'select');
  await clickAt(page, emptySpot);
  const focused = await page.evaluate(() => document.activeElement?.tagName ?? 'BODY');
  expect(['INPUT', 'TEXTAREA', 'SELECT']).not.toContain(focused);
}

const objectOf = (server: TestServer, boardId: string, objectId: string) => server.api('GET', `/boards/${boardId}/objects/${objectId}`);

/** Editing in the page: undo and redo of one's own changes, the select tool, refused writes, keyboard and phone. */
describe('browser client: editing', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  it("undoes and redoes only the guest's own sticky, never the host's", async () => {
    const board = await createBoard(server, 'Undo');
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    const first = await createTextObject(host.page, await pointAt(host.page, { x: 0.05, y: 0.1 }), 'Host before');
    await waitForObjectText(guest.page, 'Host before');
    const mine = await createTextObject(guest.page, await pointAt(guest.page, { x: 0.35, y: 0.1 }), 'Guest note');
    await waitForObjectText(host.page, 'Guest note');
    // The host writes after the guest: an undo of "the last change on the board" would take this one.
    const last = await createTextObject(host.page, await pointAt(host.page, { x: 0.65, y: 0.1 }), 'Host after');
    await waitForObjectText(guest.page, 'Host after');
    const hostIds = [first.id, last.id];

    await focusBoard(guest.page, await pointAt(guest.page, { x: 0.5, y: 0.8 }));
    // Creating the sticky and typing its text are one step, or two when the typing came later
    // than the undo manager's capture window: undo until the sticky is gone, at most twice.
    let presses = 0;
    while (presses < 2 && (await objectsOf(guest.page)).some((o) => o.id === mine.id)) {
      await guest.page.keyboard.press('Control+z');
      presses++;
    }
    let shown = await objectsOf(guest.page);
    expect(shown.map((o) => o.id)).not.toContain(mine.id);
    expect(shown.map((o) => o.id)).toEqual(expect.arrayContaining(hostIds));
    expect(await guest.page.locator(`#scene [data-object-id="${mine.id}"]`).count()).toBe(0);
    // Once more, with nothing of the guest's left to undo: the host's stickies stay (undo is synchronous in the page).
    await guest.page.keyboard.press('Control+z');
    expect((await objectsOf(guest.page)).map((o) => o.id)).toEqual(expect.arrayContaining(hostIds));

    await host.page.waitForFunction((id) => !window.whiteboard.objects().some((o) => o.id === id), mine.id);
    expect((await objectsOf(host.page)).map((o) => o.id)).toEqual(expect.arrayContaining(hostIds));
    await eventually(async () => (await objectOf(server, board.board_uuid, mine.id)).status === 404);
    for (const id of hostIds) expect((await objectOf(server, board.board_uuid, id)).status).toBe(200);

    for (let i = 0; i < presses; i++) await guest.page.keyboard.press('Control+Shift+z');
    shown = await objectsOf(guest.page);
    expect(shown.find((o) => o.id === mine.id)?.text).toBe('Guest note');
    await waitForSceneText(host.page, 'Guest note');
    await eventually(async () => (await objectOf(server, board.board_uuid, mine.id)).body?.data?.text === 'Guest note');
    for (const id of hostIds) expect((await objectOf(server, board.board_uuid, id)).status).toBe(200);
  });

  it('moves, resizes, edits and deletes a sticky with the select tool', async () => {
    const board = await createBoard(server, 'Select tool');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, {
      type: 'sticky',
      data: { text: 'Handle me' },
      position: { x: 100, y: 100 },
      width: 200,
      height: 160,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const host = await browsers.open(board.access_links.host);
    await waitForSceneText(host.page, 'Handle me');
    await chooseTool(host.page, 'select');
    const scale = await pixelsPerUnit(host.page);

    // Drag from the middle of the sticky by 80 × 50 board units.
    const from = await objectCentre(host.page, id);
    await dragScreen(host.page, from, { x: from.x + 80 * scale, y: from.y + 50 * scale });
    const moved = await eventually(async () => {
      const { body } = await objectOf(server, board.board_uuid, id);
      return Math.abs(body.position.x - 180) <= 2 && Math.abs(body.position.y - 150) <= 2 ? body : null;
    });
    expect(moved.width).toBe(200);

    // The corner handle: 60 × 40 board units larger, the position kept.
    const handle = (await host.page.locator(`#scene g.object[data-object-id="${id}"] .resize-handle`).boundingBox())!;
    const corner = { x: handle.x + handle.width / 2, y: handle.y + handle.height / 2 };
    await dragScreen(host.page, corner, { x: corner.x + 60 * scale, y: corner.y + 40 * scale });
    const resized = await eventually(async () => {
      const { body } = await objectOf(server, board.board_uuid, id);
      return Math.abs(body.width - 260) <= 2 && Math.abs(body.height - 200) <= 2 ? body : null;
    });
    expect(resized.position).toEqual(moved.position);

    const middle = await objectCentre(host.page, id);
    await host.page.mouse.dblclick(middle.x, middle.y);
    const editor = host.page.locator('textarea#text-editor');
    await editor.waitFor({ state: 'visible' });
    expect(await editor.inputValue()).toBe('Handle me');
    await editor.fill('Edited in place');
    await editor.press('Escape');
    await eventually(async () => (await objectOf(server, board.board_uuid, id)).body.data?.text === 'Edited in place');

    const centre = await objectCentre(host.page, id);
    await host.page.mouse.click(centre.x, centre.y);
    await host.page.locator(`#scene g.object.selected[data-object-id="${id}"]`).waitFor({ state: 'attached' });
    await host.page.keyboard.press('Delete');
    await eventually(async () => (await objectOf(server, board.board_uuid, id)).status === 404);
    expect(await host.page.locator(`#scene [data-object-id="${id}"]`).count()).toBe(0);
  });

  it('keeps a guest from moving an object the host locked, and says so', async () => {
    const board = await createBoard(server, 'Locked');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, {
      type: 'sticky',
      data: { text: 'Pinned by the host' },
      position: { x: 100, y: 100 },
      width: 200,
      height: 160,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await server.api('PATCH', `/boards/${board.board_uuid}/objects/${id}`, { locked: true })).status).toBe(200);
    const guest = await browsers.open(board.access_links.guest);
    await waitForSceneText(guest.page, 'Pinned by the host');
    await guest.page.locator(`#scene g.object.locked[data-object-id="${id}"] .lock-badge`).waitFor({ state: 'attached' });
    expect(await guest.page.locator('#notices .notice').count()).toBe(0);

    await chooseTool(guest.page, 'select');
    const scale = await pixelsPerUnit(guest.page);
    const from = await objectCentre(guest.page, id);
    await dragScreen(guest.page, from, { x: from.x + 80 * scale, y: from.y + 50 * scale });

    await guest.page.locator('#notices .notice', { hasText: /lock/i }).waitFor({ state: 'visible' });
    await eventually(async () => {
      const at = await drawnPosition(guest.page, id);
      return at?.x === 100 && at.y === 100;
    });
    expect((await objectOf(server, board.board_uuid, id)).body.position).toEqual({ x: 100, y: 100 });
  });

  it('tells the author when the server undoes a change the page could not foresee', async () => {
    // The page does not know object types' schemas: a text added to an object whose type allows
    // no `text` reaches the server, which undoes it (`write-rejected`, invalid-object).
    const typeName = `quiz_${Date.now()}`;
    const registered = await server.api('POST', '/object-types', { typeName, displayName: 'Quiz', category: 'assessment', schema: QUIZ_SCHEMA });
    expect(registered.status).toBe(201);
    const board = await createBoard(server, 'Refused');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: typeName, data: { question: 'What is 2 + 2?' }, position: { x: 100, y: 100 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const guest = await browsers.open(board.access_links.guest);
    await waitForSceneText(guest.page, 'What is 2 + 2?');

    const centre = await objectCentre(guest.page, id);
    await chooseTool(guest.page, 'select');
    await guest.page.mouse.dblclick(centre.x, centre.y);
    const editor = guest.page.locator('textarea#text-editor');
    await editor.waitFor({ state: 'visible' });
    await editor.fill('four');
    await editor.press('Escape');

    await guest.page.locator('#notices .notice', { hasText: /type/i }).waitFor({ state: 'visible' });
    expect((await objectOf(server, board.board_uuid, id)).body.data).toEqual({ question: 'What is 2 + 2?' });
    await eventually(async () => (await objectsOf(guest.page)).find((object) => object.id === id)?.text === null);
  });

  it('reaches an object with Tab and moves it with the arrow keys', async () => {
    const board = await createBoard(server, 'Keyboard objects');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'Move me' }, position: { x: 100, y: 100 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const guest = await browsers.open(board.access_links.guest);
    await waitForSceneText(guest.page, 'Move me');
    // From the last toolbar button, Tab reaches the board, then its objects.
    await guest.page.locator('nav#toolbar button[data-action="fit"]').focus();
    const focusedObject = () => guest.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.objectId);
    for (let presses = 0; presses < 3 && (await focusedObject()) !== id; presses++) await guest.page.keyboard.press('Tab');
    expect(await focusedObject()).toBe(id);
    await guest.page.locator(`#scene g.object.selected[data-object-id="${id}"]`).waitFor({ state: 'attached' });
    expect(await guest.page.locator(`#scene g.object[data-object-id="${id}"]`).getAttribute('aria-label')).toBe('sticky: Move me');

    await guest.page.keyboard.press('ArrowRight');
    await guest.page.keyboard.press('ArrowRight');
    await guest.page.keyboard.press('Shift+ArrowDown');
    await eventually(async () => {
      const position = (await objectOf(server, board.board_uuid, id)).body.position;
      return position.x === 120 && position.y === 150;
    });
    // Still in hand after being redrawn: the next key moves it again.
    await guest.page.keyboard.press('ArrowLeft');
    await eventually(async () => (await objectOf(server, board.board_uuid, id)).body.position.x === 110);
  });

  it('chooses tools with their keys and labels every toolbar button', async () => {
    const board = await createBoard(server, 'Keyboard');
    const guest = await browsers.open(board.access_links.guest);
    await focusBoard(guest.page, await pointAt(guest.page, { x: 0.5, y: 0.5 }));
    const keys = { s: 'sticky', r: 'rect', o: 'ellipse', t: 'text', p: 'pen', h: 'hand', v: 'select' } as const;
    for (const [key, tool] of Object.entries(keys)) {
      await guest.page.keyboard.press(key);
      const pressed = await guest.page.locator('nav#toolbar button[aria-pressed="true"]').evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.tool));
      expect(pressed, `after the key ${key}`).toEqual([tool]);
    }

    const buttons = guest.page.locator('nav#toolbar button');
    const labels = await buttons.evaluateAll((all) => all.map((b) => ({ name: (b as HTMLElement).dataset.tool ?? (b as HTMLElement).dataset.action, label: b.getAttribute('aria-label') ?? '' })));
    const names = labels.map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['select', 'hand', 'sticky', 'rect', 'ellipse', 'text', 'pen', 'undo', 'redo', 'delete']));
    for (const { name, label } of labels) expect(label.trim(), `aria-label of ${name}`).not.toBe('');
  });

  it('fits the toolbar on a phone and creates a sticky by tapping', async () => {
    const board = await createBoard(server, 'Phone');
    const phone = await browsers.open(board.access_links.guest, { viewport: { width: 390, height: 780 }, touch: true });
    const toolbar = (await phone.page.locator('nav#toolbar').boundingBox())!;
    expect(toolbar.x).toBeGreaterThanOrEqual(0);
    expect(toolbar.y).toBeGreaterThanOrEqual(0);
    expect(toolbar.x + toolbar.width).toBeLessThanOrEqual(390);
    expect(toolbar.y + toolbar.height).toBeLessThanOrEqual(780);
    // Every drawing tool is on screen without scrolling the bar (the actions after them may scroll).
    const tools = await phone.page.locator('nav#toolbar button[data-tool]').evaluateAll((all) => all.map((b) => b.getBoundingClientRect().right));
    expect(tools).toHaveLength(7);
    for (const right of tools) expect(right).toBeLessThanOrEqual(390);

    await phone.page.locator('nav#toolbar button[data-tool="sticky"]').tap();
    const at = await toScreen(phone.page, await pointAt(phone.page, { x: 0.2, y: 0.2 }));
    await phone.page.touchscreen.tap(at.x, at.y);
    const editor = phone.page.locator('textarea#text-editor');
    await editor.waitFor({ state: 'visible' });
    await editor.fill('Tapped on a phone');
    await editor.press('Escape');
    await waitForSceneText(phone.page, 'Tapped on a phone');
    await eventually(async () => {
      const objects = (await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects as any[];
      return objects.some((o) => o.type === 'sticky' && o.data?.text === 'Tapped on a phone');
    });
  });
});
