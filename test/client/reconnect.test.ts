import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserForSuite, connectionOf, createTextObject, pointAt, screenshot, waitForSceneText, type Participant } from '../helpers/browser.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/roundRobinProxy.js';
import { eventually } from '../helpers/testServer.js';

async function waitForPerson(page: Page, name: string): Promise<void> {
  await page.locator('#people li', { hasText: name }).waitFor({ state: 'attached' });
}

/** Connected, saved to the server, and showing who else is here: the page after a cut, as before it. */
async function expectBackOnline(student: Participant, host: Participant, edit: string): Promise<void> {
  await student.page.waitForFunction(() => window.whiteboard.connection() === 'connected');
  await student.page.locator('#sync-status[data-state="saved"]').waitFor({ state: 'attached' });
  await waitForPerson(student.page, 'Host');
  await createTextObject(student.page, await pointAt(student.page, { x: 0.5, y: 0.5 }), edit);
  await waitForSceneText(host.page, edit);
  await student.page.locator('#sync-status[data-state="saved"]').waitFor({ state: 'attached' });
  await screenshot(student.page, `back-online-${edit.toLowerCase().replace(/\W+/g, '-')}`);
}

/**
 * A page whose network goes away and comes back ends connected and saved,
 * with the people list back, whether its socket lived through the cut or not. The student's
 * page reaches the server through a proxy, so that a long cut can really drop its socket
 * (Chromium's offline mode refuses new connections but leaves an open socket alone).
 */
describe('browser client: back online after a network cut', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    const { hostname, port } = new URL(server.url);
    proxy = await startRoundRobinProxy([{ host: hostname, port: Number(port) }]);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Whether the server lists the student: the shared link's guest, under the id the service minted for it, with the name it declared. */
  async function studentListed(board: { board_uuid: string }): Promise<boolean> {
    const { body } = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true&includeObjects=false`);
    return (body.participants as { user_name: string }[]).some((participant) => participant.user_name === 'Student');
  }

  /** A host and a student (through the proxy) who see each other in the people list. */
  async function hostAndStudent() {
    const board = await createBoard(server, 'Network cut');
    const host = await browsers.open(board.access_links.host);
    const link = new URL(`${board.access_links.guest}&user_id=student-1&user_name=Student`);
    const student = await browsers.open(`${proxy.url}${link.pathname}${link.search}`);
    await student.page.waitForFunction(() => window.whiteboard.connection() === 'connected');
    await waitForPerson(student.page, 'Host');
    await waitForPerson(host.page, 'Student');
    return { board, host, student };
  }

  it('says connected and saved, with the people list back, after a cut the socket outlives', async () => {
    const { host, student } = await hostAndStudent();
    await student.context.setOffline(true);
    await student.page.waitForFunction(() => window.whiteboard.connection() === 'offline');
    await student.context.setOffline(false);
    await expectBackOnline(student, host, 'After a short cut');
  });

  it('reconnects when the server let the socket go during a cut the browser did not notice', async () => {
    const { board, host, student } = await hostAndStudent();
    await student.context.setOffline(true);
    await student.page.waitForFunction(() => window.whiteboard.connection() === 'offline');
    proxy.abandonConnections();
    await eventually(async () => !(await studentListed(board)), 10_000);
    await student.context.setOffline(false);
    await expectBackOnline(student, host, 'After a half-open cut');
    await waitForPerson(host.page, 'Student');
  });

  it('reconnects and says connected and saved after a cut that drops the socket', async () => {
    const { board, host, student } = await hostAndStudent();
    expect(await studentListed(board)).toBe(true);
    await student.context.setOffline(true);
    proxy.dropConnections();
    // The socket is really gone: the server no longer counts the student among those here.
    await eventually(async () => !(await studentListed(board)), 10_000);
    expect(await connectionOf(student.page)).toBe('offline');
    await student.context.setOffline(false);
    await expectBackOnline(student, host, 'After a long cut');
    await waitForPerson(host.page, 'Student');
  });
});
