import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserForSuite, screenshot } from '../helpers/browser.js';
import { placeComponent, publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';

/**
 * In the browser, a component the page cannot run (a version this registry
 * never published, or one its author deleted) shows as a "Component unavailable" card naming
 * `name@version` and why, never as an empty or broken frame; its object stays on the board.
 */
describe('browser client: components that cannot run', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  /** The card's words, and whether any of them is cut off by its box. */
  const cardOf = (box: Locator) =>
    box.locator('.component-unavailable').evaluate((card: HTMLElement) => ({
      heading: card.querySelector('strong')?.textContent,
      reference: card.querySelector('.component-reference')?.textContent,
      reason: card.querySelector('span')?.textContent,
      clipped: card.scrollHeight > card.clientHeight + 1 || card.scrollWidth > card.clientWidth + 1,
    }));

  it('shows a version not published and a deleted version as cards, and keeps both objects', async () => {
    const board = await createBoard(server, 'Unavailable');
    const deletedName = uniqueComponentName('poll');
    const { url } = await publishComponent(server, deletedName, '1.0.0', { manifest: { title: 'Poll' } });
    const deletedId = await placeComponent(server, board.board_uuid, url, { position: { x: 60, y: 60 } });
    const missingName = uniqueComponentName('timer');
    const missingUrl = `/components/files/${missingName}@2.1.0/index.html`;
    const missing = await server.api('POST', `/boards/${board.board_uuid}/objects`, {
      type: 'external-component',
      data: { componentUrl: missingUrl, props: { seconds: 90 } },
      position: { x: 420, y: 60 },
    });
    expect(missing.status, JSON.stringify(missing.body)).toBe(201);
    expect((await server.api('DELETE', `/components/${deletedName}/1.0.0`)).status).toBe(204);

    // Both objects are still the board's, as they were written.
    const read = await server.api('GET', `/boards/${board.board_uuid}?includeObjects=true`);
    const objects = new Map((read.body.state.objects as Array<{ id: string; data: unknown }>).map((object) => [object.id, object.data]));
    expect(objects.get(deletedId)).toEqual({ componentUrl: url, props: {} });
    expect(objects.get(missing.body.id)).toEqual({ componentUrl: missingUrl, props: { seconds: 90 } });

    const { page } = await browsers.open(board.access_links.host);
    const deletedBox = page.locator(`.component-box[data-object-id="${deletedId}"][data-state="deleted"]`);
    const missingBox = page.locator(`.component-box[data-object-id="${missing.body.id}"][data-state="unpublished"]`);
    await Promise.all([deletedBox.waitFor(), missingBox.waitFor()]);
    expect(await cardOf(deletedBox)).toEqual({
      heading: 'Component unavailable',
      reference: `${deletedName}@1.0.0`,
      reason: 'This component version was deleted by its author, so it can no longer run.',
      clipped: false,
    });
    expect(await cardOf(missingBox)).toEqual({
      heading: 'Component unavailable',
      reference: `${missingName}@2.1.0`,
      reason: "This version is not published in this service's registry.",
      clipped: false,
    });
    expect(await missingBox.locator('[role="alert"]').count()).toBe(1);
    expect(await page.locator('.component-box iframe').count()).toBe(0);
    // A card the size of the manifest's default dimensions, though the object was written without one.
    expect(await missingBox.evaluate((box: HTMLElement) => [box.offsetWidth, box.offsetHeight])).toEqual([300, 200]);
    await screenshot(page, 'client-components-unavailable');
  });
});
