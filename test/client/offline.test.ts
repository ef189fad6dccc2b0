import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  browserForSuite,
  connectionOf,
  createTextObject,
  sceneHasText,
  statusOf,
  waitForReady,
  waitForSceneText,
  pointAt,
} from '../helpers/browser.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/** The texts of the objects the page shows (none when it could not open the board at all). */
const shownTexts = (page: Page) => page.evaluate(() => (window.whiteboard?.objects() ?? []).map((o) => o.text));

/** Resolves once the page's IndexedDB holds everything it has so far. */
const flushed = (page: Page) => page.evaluate(() => window.whiteboard.flushed());

/**
 * The page keeps working without a network. Its service worker
 * serves the page again, its IndexedDB copy shows the board and keeps the edits, and the
 * edits reach the server (and the other participants) when the network is back.
 */
describe('browser client: offline', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  const restTexts = async (boardId: string): Promise<string[]> => {
    const board = await server.api('GET', `/boards/${boardId}`);
    return (board.body.state.objects as any[]).map((o) => o.data?.text).filter((text) => typeof text === 'string');
  };

  it('keeps edits made offline across a reload and sends them when back online', async () => {
    const board = await createBoard(server, 'Offline');
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    expect(await guest.page.evaluate(() => window.whiteboard.serviceWorkerReady())).toBe(true);

    await guest.context.setOffline(true);
    await createTextObject(guest.page, await pointAt(guest.page, { x: 0.3, y: 0.4 }), 'Written offline');
    await flushed(guest.page);

    // Reloaded without a network: only the service worker and IndexedDB can bring this back.
    await guest.page.reload();
    await waitForReady(guest.page);
    await waitForSceneText(guest.page, 'Written offline');
    expect(await guest.page.locator('#sync-status').getAttribute('data-state')).toBe('local');
    expect(await statusOf(guest.page)).toBe('local');
    expect(await connectionOf(guest.page)).not.toBe('connected');

    await createTextObject(guest.page, await pointAt(guest.page, { x: 0.6, y: 0.6 }), 'Second offline edit');
    await flushed(guest.page);
    // Truly offline: the server has not seen the second edit (no socket can be open after an offline reload).
    expect(await restTexts(board.board_uuid)).not.toContain('Second offline edit');

    await guest.context.setOffline(false);
    for (const text of ['Written offline', 'Second offline edit']) await waitForSceneText(host.page, text);
    await eventually(async () => {
      const texts = await restTexts(board.board_uuid);
      return texts.includes('Written offline') && texts.includes('Second offline edit');
    }, 15_000);
    await guest.page.locator('#sync-status[data-state="saved"]').waitFor({ state: 'attached' });
  });

  it("does not bring a deleted board's local copy back", async () => {
    const board = await createBoard(server, 'Deleted offline');
    const guest = await browsers.open(board.access_links.guest);
    expect(await guest.page.evaluate(() => window.whiteboard.serviceWorkerReady())).toBe(true);
    await createTextObject(guest.page, await pointAt(guest.page, { x: 0.4, y: 0.4 }), 'Kept on this device');
    await flushed(guest.page);
    await eventually(async () => (await restTexts(board.board_uuid)).includes('Kept on this device'));

    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    await guest.page.locator('#connection-banner[data-reason="board-deleted"]').waitFor({ state: 'visible' });

    // Reopened (online): the page says it cannot open the board (the deleted board's token is
    // refused like any unknown one), and the old copy is not shown.
    await guest.page.reload({ waitUntil: 'load' });
    await guest.page.locator('#connection-banner[data-reason]').waitFor({ state: 'visible' });
    expect(['board-deleted', 'invalid-token']).toContain(await guest.page.locator('#connection-banner').getAttribute('data-reason'));
    expect(await shownTexts(guest.page)).not.toContain('Kept on this device');
    expect(await sceneHasText(guest.page, 'Kept on this device')).toBe(false);
    // Nor offline, where only the local copy could show it.
    await guest.context.setOffline(true);
    await guest.page.reload({ waitUntil: 'load' });
    // The page settles (an empty board shown, or a banner saying why not) before it is read.
    await guest.page.waitForFunction(
      () => document.body.dataset.ready === 'true' || !document.querySelector('#connection-banner')?.hasAttribute('hidden'),
    );
    expect(await shownTexts(guest.page)).not.toContain('Kept on this device');
    expect(await sceneHasText(guest.page, 'Kept on this device')).toBe(false);
  });
});
