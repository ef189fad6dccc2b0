import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { placeComponent, publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { expectedSignature, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';
import { request } from '../helpers/testServer.js';

/**
 * Custom actions on components: `POST /boards/:boardId/objects/:objectId/actions`
 * answers 202 with the action's count on the object (persisted, one statement, exact under
 * concurrency) and raises `object.action`, which subscribed webhooks receive signed.
 */
const clock = new ManualClock(new Date('2031-05-04T08:30:00.000Z'));
const { server } = serverForSuite({ clock });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

interface Placed {
  board: CreatedBoard;
  boardId: string;
  objectId: string;
  url: string;
}

/** A new board with one object of a freshly published component (at `position`). */
async function placed(options: { board?: CreatedBoard; position?: { x: number; y: number } } = {}): Promise<Placed> {
  const { url } = await publishComponent(server, uniqueComponentName('poll'), '1.0.0');
  const board = options.board ?? (await createBoard(server, 'Actions'));
  const objectId = await placeComponent(server, board.board_uuid, url, { position: options.position });
  return { board, boardId: board.board_uuid, objectId, url };
}

const actionsPath = (p: { boardId: string; objectId: string }) => `/boards/${p.boardId}/objects/${p.objectId}/actions`;
const withToken = (token: string) => (method: string, path: string, body?: unknown) => request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${token}` });

describe('counting', () => {
  it('answers 202 with the count of this action id on this object', async () => {
    const p = await placed();
    const other = await placed({ board: p.board, position: { x: 400, y: 10 } });
    const act = async (target: Placed, actionId: string) => {
      const answer = await server.api('POST', actionsPath(target), { action_id: actionId });
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      return answer.body;
    };
    expect(await act(p, 'vote-yes')).toEqual({ action_count: 1 });
    expect(await act(p, 'vote-yes')).toEqual({ action_count: 2 });
    expect(await act(p, 'vote-no')).toEqual({ action_count: 1 });
    expect(await act(other, 'vote-yes')).toEqual({ action_count: 1 });
    expect(await act(p, 'vote-yes')).toEqual({ action_count: 3 });
  });

  it('gives 20 concurrent actions the counts 1 to 20, once each', async () => {
    const p = await placed();
    const guest = withToken(tokenOf(p.board.access_links.guest));
    const answers = await Promise.all(Array.from({ length: 20 }, () => guest('POST', actionsPath(p), { action_id: 'clap' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    expect(answers.map((answer) => answer.body.action_count as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });
});

describe('the object.action event', () => {
  it('reaches a subscribed webhook signed, with every field of an object.action delivery', async () => {
    const subscription = await server.api('POST', '/webhooks/subscriptions', { url: `${receiver.origin}/actions`, events: ['object.action'] });
    expect(subscription.status).toBe(201);
    const p = await placed();
    const ana = await server.personalLink(p.boardId, 'ana', { user_name: 'Ana' });
    await withToken(ana.token)('POST', actionsPath(p), { action_id: 'answer', action_label: 'Answer B' });
    const second = await withToken(ana.token)('POST', actionsPath(p), { action_id: 'answer', action_label: 'Answer B', action_metadata: { choice: 'B', seconds: 12 } });
    expect(second.body).toEqual({ action_count: 2 });

    const [, delivery] = await receiver.waitFor(2, (r) => r.path === '/actions' && r.json?.data?.object_id === p.objectId);
    expect(delivery!.headers['x-webhook-event']).toBe('object.action');
    expect(delivery!.headers['x-webhook-signature']).toBe(expectedSignature(delivery!.rawBody, subscription.body.secret));
    expect(verifyWebhookSignature(delivery!.rawBody, delivery!.headers['x-webhook-signature'] as string, subscription.body.secret)).toBe(true);
    expect(delivery!.json).toMatchObject({ event: 'object.action', timestamp: '2031-05-04T08:30:00.000Z' });
    expect(delivery!.json.data).toEqual({
      board_id: p.boardId,
      organization_id: server.organizationId,
      external_data: null,
      object_id: p.objectId,
      object_type: 'external-component',
      object_data: { componentUrl: p.url, props: {} },
      action_id: 'answer',
      action_label: 'Answer B',
      action_metadata: { choice: 'B', seconds: 12 },
      user_id: 'ana',
      user_name: 'Ana',
      user_role: 'guest',
      action_count: 2,
      timestamp: '2031-05-04T08:30:00.000Z',
    });
  });

  it('carries the zone of an object in a zone, and null user fields for the API key', async () => {
    const board = await createBoard(server, 'Zoned actions');
    const zone = await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 600, bounds_height: 600, assigned_user_id: 'ana' });
    const p = await placed({ board, position: { x: 50, y: 50 } });
    expect((await server.api('POST', actionsPath(p), { action_id: 'start' })).status).toBe(202);
    const event = server.events.find((e) => e.name === 'object.action' && e.payload.object_id === p.objectId);
    expect(event?.payload).toMatchObject({ zone_id: zone.id, user_id: null, user_name: null, user_role: 'host', action_label: null, action_metadata: {}, action_count: 1 });
  });
});

describe('refusals', () => {
  it.each([
    ['an empty action_id', { action_id: '' }, 'action_id'],
    ['an action_id over 100 characters', { action_id: 'a'.repeat(101) }, 'action_id'],
    ['an action_label over 200 characters', { action_id: 'a', action_label: 'l'.repeat(201) }, 'action_label'],
    ['metadata that is no object', { action_id: 'a', action_metadata: [1, 2] }, 'action_metadata'],
    ['metadata over 16 KiB', { action_id: 'a', action_metadata: { text: 'x'.repeat(17_000) } }, 'action_metadata'],
    ['an unknown field', { action_id: 'a', extra: true }, 'extra'],
  ])('refuses %s with a 400 naming the field, counting nothing', async (_what, body, field) => {
    const p = await placed();
    expectErrorBody(await server.api('POST', actionsPath(p), body), { statusCode: 400, error: 'Bad Request', field });
    expect((await server.api('POST', actionsPath(p), { action_id: 'a' })).body).toEqual({ action_count: 1 });
  });

  it('answers 409 for an object that is no component, 404 for one the caller cannot see', async () => {
    const board = await createBoard(server, 'Refusals');
    const sticky = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: {}, position: { x: 0, y: 0 } });
    expectErrorBody(await server.api('POST', actionsPath({ boardId: board.board_uuid, objectId: sticky.body.id }), { action_id: 'a' }), { statusCode: 409, error: 'Conflict' });
    expectErrorBody(await server.api('POST', actionsPath({ boardId: board.board_uuid, objectId: randomUUID() }), { action_id: 'a' }), { statusCode: 404, error: 'Not Found' });

    const zoned = await createBoard(server, 'Hidden zone');
    await postFrame(server, zoned.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 600, bounds_height: 600, assigned_user_id: 'ana', zone_visibility: 'hidden' });
    const hidden = await placed({ board: zoned, position: { x: 50, y: 50 } });
    const ben = await server.personalLink(zoned.board_uuid, 'ben');
    expectErrorBody(await withToken(ben.token)('POST', actionsPath(hidden), { action_id: 'a' }), { statusCode: 404, error: 'Not Found' });
  });
});
