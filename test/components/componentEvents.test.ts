import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../../src/components/componentEvents.js';
import { placeComponent, publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, postFrame, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Global component events: a socket's `component:event` is checked against the
 * emitting component's `globalEvents.emit` and relayed to the board's sockets with `targets`,
 * the objects whose manifests' `globalEvents.listen` match, as far as each socket may see them.
 */
const { server, connect } = serverForSuite();

describe('event name patterns', () => {
  it.each([
    ['*', 'timer:tick', true],
    ['timer:*', 'timer:tick', true],
    ['timer:*', 'timer:tick:fast', true],
    ['timer:*', 'timers:tick', false],
    ['timer:tick', 'timer:tick', true],
    ['timer:tick', 'timer:tock', false],
    ['*:tick', 'timer:tick', true],
    ['*:tick', 'timer:tock', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['**', 'x', true],
    ['timer', 'timer:tick', false],
  ])('%s against %s: %s', (pattern, name, matches) => {
    expect(matchesEventPattern(pattern, name)).toBe(matches);
  });

  it('stays fast on patterns made to backtrack', () => {
    const started = performance.now();
    expect(matchesEventPattern(`${'*a'.repeat(500)}b`, 'a'.repeat(100))).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

/** Publishes a component with these globalEvents and answers its URL. */
async function component(globalEvents: { emit?: string[]; listen?: string[] }): Promise<string> {
  return (await publishComponent(server, uniqueComponentName('events'), '1.0.0', { manifest: { globalEvents } })).url;
}

function place(boardId: string, url: string, x: number, y = 10): Promise<string> {
  return placeComponent(server, boardId, url, { position: { x, y } });
}

const eventsOf = (client: BoardClient) => client.messages.filter((message) => message.type === 'component:event');
const errorsOf = (client: BoardClient) => client.messages.filter((message) => message.type === 'error' && message.for === 'component:event');

/**
 * A board with an emitter (emits `timer:*`, listens to it too), listeners of `timer:*`, `chat:*`
 * and `*` (unless `catchAll` is false) on the board, a `timer:*` listener and a `zone:*` listener in ana's hidden zone, and
 * an emitter of `zone:*`; sockets of the teacher (host, both documents), ana (her personal link,
 * both documents), ben (his personal link) and an anonymous guest.
 */
async function classroom(options: { catchAll?: boolean } = {}) {
  const board = await createBoard(server, 'Events');
  const boardId = board.board_uuid;
  const zone = await postFrame(server, boardId, { bounds_x: 2000, bounds_y: 0, bounds_width: 1000, bounds_height: 1000, assigned_user_id: 'ana', zone_visibility: 'hidden' });
  const [timer, timerListener, chatListener, allListener, zoneEmitter, zoneListener] = await Promise.all([
    component({ emit: ['timer:*'], listen: ['timer:*'] }),
    component({ listen: ['timer:*'] }),
    component({ listen: ['chat:*'] }),
    component({ listen: ['*'] }),
    component({ emit: ['zone:*'] }),
    component({ listen: ['zone:*'] }),
  ]);
  const ids = {
    timer: await place(boardId, timer, 10),
    timerListener: await place(boardId, timerListener, 400),
    chatListener: await place(boardId, chatListener, 800),
    ...(options.catchAll === false ? {} : { allListener: await place(boardId, allListener, 1200) }),
    zoneEmitter: await place(boardId, zoneEmitter, 10, 600),
    inZoneTimer: await place(boardId, timerListener, 2100),
    inZone: await place(boardId, zoneListener, 2500),
  };
  const zoneDocument = `${boardId}/zones/${zone.id}`;
  const [ana, ben] = await Promise.all([server.personalLink(boardId, 'ana'), server.personalLink(boardId, 'ben')]);
  const hostToken = tokenOf(board.access_links.host);
  const sockets = {
    teacher: connect(hostToken, boardId, { user_id: 'teacher' }),
    ana: connect(ana.token, boardId),
    ben: connect(ben.token, boardId),
    guest: connect(tokenOf(board.access_links.guest), boardId),
  };
  // Zone documents ride on the same sockets' users: the teacher's and ana's clients open it too.
  const zoneViews = [connect(hostToken, zoneDocument, { user_id: 'teacher' }), connect(ana.token, zoneDocument)];
  await Promise.all([...Object.values(sockets), ...zoneViews].map((client) => client.synced()));
  return { boardId, ids, sockets };
}

describe('routing', () => {
  it('relays an emitted event to every socket, naming the listening objects each may see', async () => {
    const { ids, sockets } = await classroom();
    sockets.teacher.sendStateless({ type: 'component:event', object_id: ids.timer, name: 'timer:tick', payload: { n: 1 } });

    const everywhere = [ids.timerListener, ids.allListener!];
    const expected = new Map([
      [sockets.teacher, [...everywhere, ids.inZoneTimer]],
      [sockets.ana, [...everywhere, ids.inZoneTimer]],
      [sockets.ben, everywhere],
      [sockets.guest, everywhere],
    ]);
    for (const [client, targets] of expected) {
      await eventually(() => eventsOf(client).length === 1);
      const [event] = eventsOf(client);
      expect({ ...event, targets: [...event!.targets].sort() }).toEqual({
        type: 'component:event',
        object_id: ids.timer,
        name: 'timer:tick',
        payload: { n: 1 },
        from: 'teacher',
        targets: [...targets].sort(),
      });
    }
  });

  it('sends nothing to a socket that sees none of the listeners', async () => {
    const { ids, sockets } = await classroom({ catchAll: false });
    sockets.ana.sendStateless({ type: 'component:event', object_id: ids.zoneEmitter, name: 'zone:ping' });
    await eventually(() => eventsOf(sockets.teacher).length === 1 && eventsOf(sockets.ana).length === 1);
    expect(eventsOf(sockets.ana)[0]).toEqual({ type: 'component:event', object_id: ids.zoneEmitter, name: 'zone:ping', payload: null, from: 'ana', targets: [ids.inZone] });

    // A later event ben does get: the earlier one, relayed before it, never reached him.
    sockets.guest.sendStateless({ type: 'component:event', object_id: ids.timer, name: 'timer:done' });
    await eventually(() => eventsOf(sockets.ben).length === 1);
    // The shared-link guest sends as the participant the service minted for its socket.
    expect(eventsOf(sockets.ben)[0]).toMatchObject({ name: 'timer:done', from: await sessionParticipantOf(sockets.guest) });
    expect(eventsOf(sockets.guest).map((event) => event.name)).toEqual(['timer:done']);
  });
});

describe('refusals', () => {
  it.each([
    ['a name outside globalEvents.emit', (ids: Record<string, string>) => ({ object_id: ids.timer, name: 'chat:message' }), /globalEvents\.emit/],
    ['a name with a wildcard', (ids: Record<string, string>) => ({ object_id: ids.timer, name: 'timer:*' }), /name must be/],
    ['a payload over 16 KiB', (ids: Record<string, string>) => ({ object_id: ids.timer, name: 'timer:tick', payload: { text: 'x'.repeat(17_000) } }), /payload.*larger than 16384 bytes/],
    ['an object that does not exist', () => ({ object_id: randomUUID(), name: 'timer:tick' }), /Object not found/],
    ['an object the sender cannot see', (ids: Record<string, string>) => ({ object_id: ids.inZoneTimer, name: 'timer:tick' }), /Object not found/],
    ['a message without a name', (ids: Record<string, string>) => ({ object_id: ids.timer }), /needs object_id/],
  ])('answers %s with an error for component:event and relays nothing', async (_what, message, reason) => {
    const { ids, sockets } = await classroom();
    sockets.ben.sendStateless({ type: 'component:event', ...message(ids) });
    await eventually(() => errorsOf(sockets.ben).length === 1);
    expect(errorsOf(sockets.ben)[0]!.message).toMatch(reason);
    // Refused before anything was sent: the sockets received no event.
    for (const client of Object.values(sockets)) expect(eventsOf(client)).toEqual([]);
  });

  it('answers for an object that is no component', async () => {
    const { boardId, sockets } = await classroom();
    const sticky = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: {}, position: { x: 0, y: 900 } });
    sockets.teacher.sendStateless({ type: 'component:event', object_id: sticky.body.id, name: 'timer:tick' });
    await eventually(() => errorsOf(sockets.teacher).length === 1);
    expect(errorsOf(sockets.teacher)[0]!.message).toMatch(/not an external-component/);
  });
});
