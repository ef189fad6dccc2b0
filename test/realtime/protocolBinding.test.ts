import { describe, expect, it } from 'vitest';
import { SERVER_MESSAGE_HANDLERS } from '../../client/src/app/messageHandler.js';
import { parseServerMessage } from '../../client/src/app/serverMessages.js';
import { adviceFor, CLOSE_HANDLING, closeReasonOf, forgetsDevice } from '../../client/src/session/closeReasons.js';
import { CLOSE_CODE_LIST } from '../../src/realtime/protocol/closeCodes.js';
import { SERVER_MESSAGE_TYPES } from '../../src/realtime/protocol/serverMessages.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';
import { connectBoardClient, rawSocketOutcome, sessionParticipantOf } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The browser client and the server share one realtime protocol (src/realtime/protocol): the
 * client's tables cover every message and close of it, and what a real server sends reads as it.
 */
describe('the client covers the protocol', () => {
  it('has a handler for every server message type, and none for a type the protocol lacks', () => {
    expect(Object.keys(SERVER_MESSAGE_HANDLERS).sort()).toEqual([...SERVER_MESSAGE_TYPES].sort());
  });

  it('knows what to do on every close of the catalogue, and on nothing else', () => {
    expect(Object.keys(CLOSE_HANDLING).sort()).toEqual(CLOSE_CODE_LIST.map((close) => close.reason).sort());
  });

  it('tells each close by its reason, and has words for every close it shows', () => {
    expect(new Set(CLOSE_CODE_LIST.map((close) => close.reason)).size).toBe(CLOSE_CODE_LIST.length);
    for (const close of CLOSE_CODE_LIST) {
      const shown = CLOSE_HANDLING[close.reason] !== 'zone';
      expect(closeReasonOf(close.code, close.reason), close.reason).toBe(shown ? close.reason : null);
      if (shown) expect(adviceFor(close.reason).words, close.reason).toMatch(/\w/);
    }
  });
});

describe('over a real socket', () => {
  const { server, clients } = serverForSuite();
  const join = (link: string, userId: string, name: string) => {
    const client = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name });
    clients.push(client);
    return client;
  };

  it('every message the server sends a host and a shared-link guest is one the client reads', async () => {
    const board = await createBoard(server, 'Protocol');
    const host = join(board.access_links.host, 'teacher', board.board_uuid);
    const guest = join(board.access_links.guest, 'pupil', board.board_uuid);
    await Promise.all([host.synced(), guest.synced()]);
    await sessionParticipantOf(guest);
    host.sendStateless({ type: 'subscribe', events: ['*'] });
    host.sendStateless({ type: 'frame:navigate', frameId: 'frame-1', smooth: true });
    guest.sendStateless({ type: 'no-such-message' });
    await eventually(() => guest.messages.some((m) => m.type === 'frame:navigate') && guest.messages.some((m) => m.type === 'error'));
    await eventually(() => host.messages.some((m) => m.type === 'subscribed'));

    const received = [...host.messages, ...guest.messages];
    expect(new Set(received.map((m) => m.type))).toEqual(
      new Set(['participant:joined', 'session:participant', 'subscribed', 'frame:navigate', 'error']),
    );
    for (const message of received) expect(parseServerMessage(JSON.stringify(message)), message.type).toEqual(message);
  });

  it('closes with the catalogue: an ended session offers to rejoin, a refused token stops for good', async () => {
    const board = await createBoard(server, 'Protocol closes');
    const host = join(board.access_links.host, 'teacher', board.board_uuid);
    await host.synced();
    expect((await server.api('POST', `/boards/${board.board_uuid}/end-session`)).status).toBe(200);
    const ended = (await eventually(() => host.closes[0]))!;
    expect(closeReasonOf(ended.code, ended.reason)).toBe('session-ended');
    expect(adviceFor('session-ended').reconnect).toBe('on-request');

    const refused = await rawSocketOutcome(server.socketUrl(`${server.url}/?token=not-a-token`));
    expect(closeReasonOf(refused.code, refused.reason)).toBe('invalid-token');
    expect(adviceFor('invalid-token').reconnect).toBe('never');
    expect(forgetsDevice('invalid-token')).toBe(true);
  });
});
