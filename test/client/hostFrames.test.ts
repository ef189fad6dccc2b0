import { describe, expect, it } from 'vitest';
import { browserForSuite, chooseTool, dragScreenBy, openFramesPanel, pixelsPerUnit, toScreen, viewportOf } from '../helpers/browser.js';
import { createBoard, postFrame, serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The host creates and edits frames from the page (REST is the
 * record), and every page reports where its view is (`participant:location`, throttled).
 */
describe('browser client: the host edits frames, pages report their view', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  const frameOf = async (boardId: string, frameId: string) => (await server.api('GET', `/boards/${boardId}/frames/${frameId}`)).body;

  it('moves a frame dragged by its name and resizes it by its corner, and the guest sees it', async () => {
    const board = await createBoard(server, 'Frame edits');
    const frame = await postFrame(server, board.board_uuid, { name: 'Group A', bounds_x: 100, bounds_y: 100, bounds_width: 400, bounds_height: 300 });
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    await chooseTool(host.page, 'select');
    // The page fits this lone frame to the screen; zoomed out (the `-` key), its moved corner stays on screen.
    await host.page.locator('svg#scene').hover();
    for (let i = 0; i < 3; i++) await host.page.keyboard.press('-');

    const name = host.page.locator(`g.frame[data-frame-id="${frame.id}"] .frame-name`);
    const box = (await name.boundingBox())!;
    const scale = await pixelsPerUnit(host.page);
    await host.page.mouse.move(box.x + 5, box.y + box.height / 2);
    await host.page.mouse.down();
    await host.page.mouse.move(box.x + 5 + 100 * scale, box.y + box.height / 2 + 50 * scale, { steps: 8 });
    await host.page.mouse.up();
    await eventually(async () => {
      const moved = await frameOf(board.board_uuid, frame.id);
      return Math.abs(moved.bounds_x - 200) <= 2 && Math.abs(moved.bounds_y - 150) <= 2;
    });

    const corner = await toScreen(host.page, { x: (await frameOf(board.board_uuid, frame.id)).bounds_x + 400, y: (await frameOf(board.board_uuid, frame.id)).bounds_y + 300 });
    await host.page.mouse.move(corner.x - 2, corner.y - 2);
    await host.page.mouse.down();
    await host.page.mouse.move(corner.x + 100 * scale, corner.y + 100 * scale, { steps: 8 });
    await host.page.mouse.up();
    await eventually(async () => {
      const resized = await frameOf(board.board_uuid, frame.id);
      return resized.bounds_width >= 490 && resized.bounds_height >= 390;
    });

    // The guest's page draws the frame where the host put it (frame:updated over the socket).
    const final = await frameOf(board.board_uuid, frame.id);
    await guest.page.waitForFunction(
      ({ id, width }) => Number(document.querySelector(`g.frame[data-frame-id="${id}"] rect`)?.getAttribute('width')) === width,
      { id: frame.id, width: final.bounds_width },
    );
    // A guest has no grip: its press on the name pans instead of moving the frame.
    expect(await guest.page.locator(`g.frame[data-frame-id="${frame.id}"] .frame-resize`).count()).toBe(0);
  });

  it('creates a frame from the panel and renames it', async () => {
    const board = await createBoard(server, 'Frame create');
    const host = await browsers.open(board.access_links.host);
    await openFramesPanel(host.page);
    await host.page.locator('#frames-panel button[data-action="new-frame"]').click();
    const row = host.page.locator('#frames-panel li[data-frame-id]');
    await row.waitFor({ state: 'visible' });
    const frameId = (await row.getAttribute('data-frame-id'))!;
    await row.locator('input[data-field="name"]').fill('Warm-up');
    await row.locator('input[data-field="name"]').press('Enter');
    await eventually(async () => (await frameOf(board.board_uuid, frameId)).name === 'Warm-up');
    await host.page.locator(`g.frame[data-frame-id="${frameId}"] .frame-name`, { hasText: 'Warm-up' }).waitFor();
  });

  it("reports where a guest looks, which the host reads over REST", async () => {
    const board = await createBoard(server, 'Locations');
    const frame = await postFrame(server, board.board_uuid, { name: 'Here', bounds_x: 0, bounds_y: 0, bounds_width: 600, bounds_height: 400 });
    const guest = await browsers.open(`${board.access_links.guest}&user_id=watcher&user_name=Watcher`);
    await chooseTool(guest.page, 'hand');
    await dragScreenBy(guest.page, -300, -200);
    const view = await viewportOf(guest.page);
    const located = await eventually(async () => {
      const { body } = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true&includeObjects=false`);
      // A guest of the shared link is listed under the participant id the service minted; its declared name shows.
      const watcher = (body.participants as any[]).find((participant) => participant.user_name === 'Watcher');
      const bounds = watcher?.location?.viewportBounds;
      return bounds && Math.abs(bounds.x - view.x) <= 2 && Math.abs(bounds.y - view.y) <= 2 ? watcher.location : null;
    });
    const centre = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    const inFrame = centre.x <= 600 && centre.y <= 400 && centre.x >= 0 && centre.y >= 0;
    expect(located.frameId).toBe(inFrame ? frame.id : null);
  });
});
