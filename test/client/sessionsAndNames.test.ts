import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserForSuite, createTextObject, screenshot, waitForReady, waitForSceneText } from '../helpers/browser.js';
import { createBoard, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Session participants and names in the browser: a student who opens the shared guest link is a
 * session participant the teacher can give a zone to, and stays that participant across a
 * reload and an offline reopen; everyone in the people list has a readable name, and a
 * host's service connection is not listed.
 */

const { server, connect } = serverForSuite();
const browser = browserForSuite();

/** The people list as this page shows it: id, name, and the tag (`you`, `host`, `agent`). */
const peopleOf = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLLIElement>('#people li')).map((item) => ({
      id: item.dataset.userId ?? '',
      name: item.querySelector<HTMLInputElement>('input')?.value ?? item.querySelector('.name')?.textContent ?? '',
      self: item.classList.contains('self'),
    })),
  );

const selfIdOf = async (page: Page) => (await peopleOf(page)).find((person) => person.self)?.id ?? '';

describe('a student of the shared guest link', () => {
  it('is a session participant the teacher can give a zone to, the same one after a reload and offline', async () => {
    const board = await createBoard(server, 'Shared link class');
    const student = await browser.open(`${board.access_links.guest}&user_name=Robin`);
    const participantId = await eventually(async () => {
      const id = await selfIdOf(student.page);
      return id.startsWith('guest-') ? id : null;
    }, 10_000);
    // The page knows its id (minted over REST) before its socket has joined: wait until it is listed.
    const listed = await eventually(async () => {
      const read = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true&includeObjects=false`);
      return (read.body.participants as Array<{ user_id: string }>).find((participant) => participant.user_id === participantId);
    }, 10_000);
    expect(listed).toMatchObject({ user_id: participantId, user_name: 'Robin', user_type: 'anonymous' });
    const zone = await server.api('POST', `/boards/${board.board_uuid}/frames`, {
      name: "Robin's zone",
      bounds_x: 0,
      bounds_y: 0,
      bounds_width: 600,
      bounds_height: 400,
      assigned_participant_id: participantId,
      zone_visibility: 'hidden',
    });
    expect(zone.status).toBe(201);

    await student.page.reload();
    await waitForReady(student.page);
    expect(await selfIdOf(student.page)).toBe(participantId);
    await createTextObject(student.page, { x: 120, y: 120 }, 'my answer');
    const host = connect(tokenOf(board.access_links.host), `${board.board_uuid}/zones/${zone.body.id}`);
    await host.synced();
    await eventually(() => [...host.doc.getMap<any>('objects').values()].some((object) => JSON.stringify(object.toJSON()).includes('my answer')), 10_000);

    await student.context.setOffline(true);
    await student.page.reload().catch(() => undefined);
    await waitForReady(student.page);
    expect(await selfIdOf(student.page)).toBe(participantId);
    await waitForSceneText(student.page, 'my answer');
    await screenshot(student.page, 'session-participant-offline');
  });
});

describe('names in the people list', () => {
  it("shows a personal link's user id when it has no name, a host connection as Host, and no service connection", async () => {
    const board = await createBoard(server, 'Names');
    const teacher = await browser.open(board.access_links.host);
    const personal = await server.personalLink(board.board_uuid, 't-01');
    const student = await browser.open(personal.link);
    const integration = connect(tokenOf(board.access_links.host), board.board_uuid);
    const mirror = connect(tokenOf(board.access_links.host), board.board_uuid, { presence: 'none' });
    await Promise.all([integration.synced(), mirror.synced()]);

    await eventually(async () => (await peopleOf(teacher.page)).length === 3, 10_000);
    const people = await peopleOf(teacher.page);
    expect(people.find((person) => person.id === 't-01')?.name).toBe('t-01');
    const others = people.filter((person) => !person.self && person.id !== 't-01');
    expect(others.map((person) => person.name)).toEqual(['Host']);
    expect(people.some((person) => /anonymous-|Guest t-01/.test(person.name))).toBe(false);
    expect((await peopleOf(student.page)).find((person) => person.self)?.name).toBe('t-01');
    await screenshot(teacher.page, 'people-names');

    const listed = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true&includeObjects=false`);
    expect(listed.body.participants_count).toBe(3);
    expect(listed.body.participants.map((p: { user_name: string }) => p.user_name).sort()).toEqual(['Host', 'Host', 't-01']);
  });
});
