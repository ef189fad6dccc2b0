import { describe, expect, it } from 'vitest';
import { serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';
import { asBearer, MISSING_ID, newDocumentedBoard, DocumentedApi } from './documentedApi.js';
import { RESPONSE_SUITES } from './openApiTestKit.js';

/**
 * Every operation of the Boards, Objects, Participant links and Frames tags, called on the real
 * server: each answer's status is one the document lists for it, and its body validates against
 * that status's schema with no undocumented field (documentedApi.ts).
 */
const TAGS = RESPONSE_SUITES['responsesBoards.test.ts']!;
const suite = serverForSuite();
// The suite's server is a stand-in until beforeAll starts it; the API reads it per call.
const api = new DocumentedApi(suite.server);

const newBoard = (body: Record<string, unknown> = {}) => newDocumentedBoard(api, body);


describe('the Boards API answers as documented', () => {
  it('creates, lists, reads, changes, duplicates, archives and deletes boards', async () => {
    const full = await api.call('POST /boards', {
      body: {
        title: 'Full board',
        external_id: 'ext-1',
        owner_external_id: `owner-${MISSING_ID}`,
        webhook_url: 'http://127.0.0.1:9/hook',
        config: { max_participants: 10, components: [{ type: 'widget', url: 'https://example.com/w.html', props: { a: 1 } }] },
        external_data: { course: 'math' },
        initial_objects: [{ type: 'sticky', data: { text: 'hi' }, position: { x: 1, y: 2 } }],
      },
    });
    expect(full.body.webhook_secret).toEqual(expect.any(String));
    const boardId = full.body.board_uuid as string;
    const guest = tokenOf(full.body.access_links.guest);
    expect((await api.call('POST /boards/create', { body: { title: 'Old path' } })).status).toBe(201);
    expect((await api.call('GET /boards', { query: { status: 'active' } })).status).toBe(200);
    expect((await api.call('GET /boards/by-owner', { query: { externalId: `owner-${MISSING_ID}` } })).body).toHaveLength(1);
    const read = await api.call('GET /boards/{boardId}', { params: { boardId }, query: { includeParticipants: 'true' } });
    expect(read.body.state.objects).toHaveLength(1);
    const asGuest = await api.call('GET /boards/{boardId}', { params: { boardId }, ...asBearer(guest) });
    expect(asGuest.body.access_links).toEqual({ guest: expect.any(String) });
    expect((await api.call('GET /boards/{boardId}/me', { params: { boardId }, ...asBearer(guest), headers: { authorization: `Bearer ${guest}`, 'x-user-id': 'ann' } })).body.user_id).toBe('ann');
    expect((await api.call('GET /boards/{boardId}/access-links', { params: { boardId } })).status).toBe(200);
    expect((await api.call('PATCH /boards/{boardId}', { params: { boardId }, body: { title: 'Renamed', config: { allow_anonymous: false } } })).status).toBe(200);
    expect((await api.call('POST /boards/{boardId}/end-session', { params: { boardId } })).status).toBe(200);
    expect((await api.call('POST /boards/{boardId}/duplicate', { params: { boardId } })).body.source_board_uuid).toBe(boardId);
    expect((await api.call('PATCH /boards/{boardId}/archive', { params: { boardId } })).body.archived_at).toEqual(expect.any(String));
    expect((await api.call('GET /boards/{boardId}', { params: { boardId } })).body.archived_at).toEqual(expect.any(String));
    expect((await api.call('PATCH /boards/{boardId}/archive', { params: { boardId } })).body.restored_at).toEqual(expect.any(String));
    expect((await api.call('DELETE /boards/{boardId}', { params: { boardId }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('DELETE /boards/{boardId}', { params: { boardId } })).status).toBe(204);
  });

  it('lists connected participants as documented', async () => {
    const { boardId, guest } = await newBoard();
    const client = suite.connect(guest, boardId, { user_id: 'ann', user_name: 'Ann' });
    await client.synced();
    const participants = await eventually(async () => {
      const read = await api.call('GET /boards/{boardId}', { params: { boardId }, query: { includeParticipants: 'true', includeObjects: 'false' } });
      return (read.body.participants as unknown[]).length === 1 ? read.body.participants : null;
    });
    expect(participants[0]).toMatchObject({ user_id: expect.stringMatching(/^guest-/), user_name: 'Ann', role: 'guest' });
  });

  it('refuses as documented', async () => {
    const { boardId, guest } = await newBoard();
    expect((await api.call('POST /boards', { body: { title: '' } })).status).toBe(400);
    expect((await api.call('GET /boards', { query: { status: 'gone' } })).status).toBe(400);
    expect((await api.call('GET /boards/by-owner')).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}', { params: { boardId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('GET /boards/{boardId}/me', { params: { boardId }, anonymous: true, query: { token: 'not-a-token' } })).status).toBe(401);
    expect((await api.call('GET /boards/{boardId}/access-links', { params: { boardId }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('PATCH /boards/{boardId}', { params: { boardId }, body: {} })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/end-session', { params: { boardId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('PATCH /boards/{boardId}/archive', { params: { boardId: MISSING_ID } })).status).toBe(404);
    const other = await suite.server.newOrganization();
    const foreign = { headers: { 'x-api-key': other.apiKey } };
    expect((await api.call('POST /boards/{boardId}/duplicate', { params: { boardId }, ...foreign })).status).toBe(403);
    expect((await api.call('POST /boards/create', { body: { title: 'x', unknown: 1 } })).status).toBe(400);
  });

  it('answers 410 for an expired board', async () => {
    const { boardId } = await newBoard({ expires_in_hours: 0.0002 });
    await eventually(async () => (await suite.server.api('GET', `/boards/${boardId}`)).status === 410);
    expect((await api.call('GET /boards/{boardId}', { params: { boardId } })).status).toBe(410);
    expect((await api.call('POST /boards/{boardId}/duplicate', { params: { boardId } })).status).toBe(410);
  });
});

describe('objects answer as documented', () => {
  it('adds, lists, reads, changes and deletes objects', async () => {
    const { boardId, guest } = await newBoard();
    const added = await api.call('POST /boards/{boardId}/objects', { params: { boardId }, body: { type: 'sticky', data: { text: 'a' }, position: { x: 0, y: 0 }, width: 10 } });
    expect(added.status).toBe(201);
    const objectId = added.body.id as string;
    expect((await api.call('GET /boards/{boardId}/elements', { params: { boardId }, query: { limit: '1' } })).body.pagination).toMatchObject({ total: 1 });
    expect((await api.call('GET /boards/{boardId}/elements', { params: { boardId }, query: { pagination: 'false' } })).body).toHaveLength(1);
    expect((await api.call('GET /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId } })).status).toBe(200);
    const locked = await api.call('PATCH /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId }, body: { locked: true, data: { text: 'b' } }, headers: { 'x-user-id': 'teacher' } });
    expect(locked.body).toMatchObject({ locked: true, updated_by: null });
    expect((await api.call('PATCH /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId }, body: { data: {} }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('DELETE /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId } })).status).toBe(204);
    expect((await api.call('DELETE /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId } })).status).toBe(404);
    expect((await api.call('GET /boards/{boardId}/objects/{objectId}', { params: { boardId, objectId } })).status).toBe(404);
    expect((await api.call('POST /boards/{boardId}/objects', { params: { boardId }, body: { type: 'sticky' } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/elements', { params: { boardId }, query: { pagination: 'false', limit: '5' } })).status).toBe(400);
  });
});

describe('personal links answer as documented', () => {
  it('issues, lists and revokes links', async () => {
    const { boardId, guest } = await newBoard();
    const link = { user_id: 'sam', user_name: 'Sam', external_user_id: 's-1', external_source: 'lms' };
    expect((await api.call('POST /boards/{boardId}/participant-links', { params: { boardId }, body: link })).status).toBe(201);
    expect((await api.call('POST /boards/{boardId}/participant-links', { params: { boardId }, body: link })).status).toBe(200);
    expect((await api.call('GET /boards/{boardId}/participant-links', { params: { boardId } })).body).toHaveLength(1);
    expect((await api.call('DELETE /boards/{boardId}/participant-links/{userId}', { params: { boardId, userId: 'sam' } })).status).toBe(204);
    expect((await api.call('POST /boards/{boardId}/participant-links', { params: { boardId }, body: { external_source: 'lms' } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/participant-links', { params: { boardId }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('DELETE /boards/{boardId}/participant-links/{userId}', { params: { boardId, userId: 'nobody' } })).status).toBe(404);
    const session = { params: { boardId }, body: { user_name: 'Kim' }, ...asBearer(guest) };
    expect((await api.call('POST /boards/{boardId}/session-participants', session)).status).toBe(201);
    expect((await api.call('POST /boards/{boardId}/session-participants', { params: { boardId }, body: {} })).status).toBe(403);
    expect((await api.call('POST /boards/{boardId}/session-participants', { ...session, body: { user_name: 7 } })).status).toBe(400);
  });
});

describe('frames and zones answer as documented', () => {
  it('creates, lists, reads, changes, clones, assigns and archives frames', async () => {
    const { boardId, guest } = await newBoard();
    const at = (x: number) => ({ bounds_x: x, bounds_y: 0, bounds_width: 200, bounds_height: 200 });
    const frame = await api.call('POST /boards/{boardId}/frames', { params: { boardId }, body: { name: 'Intro', background_color: '#fff', ...at(0) } });
    const frameId = frame.body.id as string;
    const zone = await api.call('POST /boards/{boardId}/frames', { params: { boardId }, body: { name: 'Zone', assigned_user_id: 'sam', zone_visibility: 'visible', ...at(1000) } });
    expect(zone.status).toBe(201);
    const zoneId = zone.body.id as string;
    expect((await api.call('GET /boards/{boardId}/frames', { params: { boardId }, query: { includeArchived: 'true' } })).body).toHaveLength(2);
    expect((await api.call('GET /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId } })).status).toBe(200);
    expect((await api.call('PATCH /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId }, body: { lock_mode: 'soft' } })).status).toBe(200);
    const clone = await api.call('POST /boards/{boardId}/frames/{frameId}/clone', { params: { boardId, frameId }, body: { offsetX: 300 } });
    expect(clone.body.parent_frame_id).toBe(frameId);
    expect((await api.call('POST /boards/{boardId}/frames/{frameId}/assign', { params: { boardId, frameId }, body: { user_id: 'ann' } })).body.assigned_user_id).toBe('ann');
    expect((await api.call('POST /boards/{boardId}/frames/{frameId}/unassign', { params: { boardId, frameId } })).body.assigned_user_id).toBeNull();
    const bulk = await api.call('POST /boards/{boardId}/zones/bulk-assign', {
      params: { boardId },
      body: { issue_links: true, assignments: [{ frame_id: frameId, user_id: 'ann' }, { frame_id: MISSING_ID, user_id: 'bob' }] },
    });
    expect(bulk.body).toMatchObject({ assigned: 1, failed: 1 });
    expect((await api.call('DELETE /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId: clone.body.id } })).status).toBe(200);

    expect((await api.call('POST /boards/{boardId}/frames', { params: { boardId }, body: { name: 'Tiny', bounds_width: 10 } })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/frames', { params: { boardId }, body: { name: 'Overlap', assigned_user_id: 'kim', ...at(1050) } })).status).toBe(409);
    expect((await api.call('GET /boards/{boardId}/frames', { params: { boardId }, query: { assigned: 'maybe' } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('PATCH /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId: zoneId }, body: { name: 'Mine' }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('DELETE /boards/{boardId}/frames/{frameId}', { params: { boardId, frameId: zoneId }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('POST /boards/{boardId}/frames/{frameId}/clone', { params: { boardId, frameId }, body: { offsetX: 'far' } })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/frames/{frameId}/assign', { params: { boardId, frameId }, body: {} })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/frames/{frameId}/unassign', { params: { boardId, frameId: zoneId }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('POST /boards/{boardId}/zones/bulk-assign', { params: { boardId }, body: { assignments: [] } })).status).toBe(400);
  });
});

describe('the document covers what these tags answer', () => {
  it('refuses every operation that needs a credential without one (401)', async () => {
    const statuses = await api.callEachWithoutCredential(TAGS);
    expect(statuses.size).toBeGreaterThan(0);
    expect([...statuses].filter(([, status]) => status !== 401)).toEqual([]);
  });

  it('drove every operation of its tags to a documented answer and a documented refusal', () => {
    expect(api.neverAnswered(TAGS)).toEqual([]);
    expect(api.neverRefused(TAGS)).toEqual([]);
  });
});
