import { issueParticipantLinkSchema, startSessionParticipantSchema } from '../../../boards/participantLinksSchemas.js';
import {
  byOwnerQuerySchema,
  createBoardSchema,
  getBoardQuerySchema,
  listBoardsQuerySchema,
  listElementsQuerySchema,
  objectInputSchema,
  objectPatchSchema,
  updateBoardSchema,
} from '../../../boards/schemas.js';
import { schemaRef } from '../jsonSchema.js';
import type { OperationSpec } from '../operationSpec.js';
import { listOf } from '../schemas/common.js';

/** http/routes/boardRoutes.ts and participantLinksRoutes.ts. */

const tag = 'Boards';
const createBoardBody = { name: 'CreateBoardRequest', schema: createBoardSchema };
const boardCreated = { 201: { description: 'The board, with its host and guest links.', schema: 'BoardCreated' } };
const noContent = (description: string) => ({ 204: { description } });
const sunset = { description: 'When the deprecated path stops being served.', schema: { type: 'string' } };

export const BOARD_OPERATIONS: OperationSpec[] = [
  {
    method: 'post', path: '/boards', tag, summary: 'Create a board', credential: 'apiKey', body: createBoardBody,
    description: 'Writes `initial_objects` into the board. A `webhook_url` gets a signing secret, answered once as `webhook_secret`.',
    responses: boardCreated, errors: [422],
  },
  {
    method: 'post', path: '/boards/create', tag, summary: 'Create a board (deprecated path)', credential: 'apiKey', body: createBoardBody, deprecated: true,
    description: 'The same as `POST /boards`, deprecated and scheduled for removal in March 2026 (its `Sunset` header gives the date).',
    responses: {
      201: {
        description: 'The board, with its host and guest links.', schema: 'BoardCreated',
        headers: { Deprecation: { description: '`true`.', schema: { type: 'string' } }, Sunset: sunset, Link: { description: 'The successor, `POST /api/v1/boards`.', schema: { type: 'string' } } },
      },
    },
    errors: [422],
  },
  {
    method: 'get', path: '/boards', tag, summary: "List the organization's boards", credential: 'apiKey', query: listBoardsQuerySchema,
    description: 'Newest first; without `status`, archived boards are left out.',
    responses: { 200: { description: 'The boards.', schema: listOf(schemaRef('BoardListItem')) } }, errors: [],
  },
  {
    method: 'get', path: '/boards/by-owner', tag, summary: "List an owner's boards", credential: 'apiKey', query: byOwnerQuerySchema,
    responses: { 200: { description: 'The boards created with this `owner_external_id`.', schema: listOf(schemaRef('BoardListItem')) } }, errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}', tag, summary: 'Read a board', credential: 'board', query: getBoardQuerySchema,
    description: "The objects and participants the caller may see (a zone hidden from a guest stays hidden); a guest sees only the guest link.",
    responses: { 200: { description: 'The board.', schema: 'Board' } }, errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}/me', tag, summary: 'Who the caller is on a board', credential: 'board',
    description: 'What the browser client shows as "you": the role, and the user a personal link (or a declared `X-User-Id`, `X-User-Name`) names.',
    responses: { 200: { description: 'The caller.', schema: 'BoardCaller' } }, errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}/access-links', tag, summary: "Read a board's host and guest links", credential: 'board',
    responses: { 200: { description: 'The links (host only).', schema: 'BoardAccessLinks' } }, errors: [],
  },
  {
    method: 'patch', path: '/boards/{boardId}', tag, summary: 'Change a board', credential: 'board', body: { name: 'UpdateBoardRequest', schema: updateBoardSchema },
    description: '`config` is merged into the current one; `expires_in_hours` counts from now.',
    responses: { 200: { description: 'The changed fields.', schema: 'BoardUpdated' } }, errors: [],
  },
  {
    method: 'delete', path: '/boards/{boardId}', tag, summary: 'Delete a board for good', credential: 'board',
    description: 'Works on expired boards too. A guest is refused (403).',
    responses: noContent('Deleted.'), errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/end-session', tag, summary: 'End the live session', credential: 'board',
    description: 'Disconnects every socket; the board stays active and may be joined again.',
    responses: { 200: { description: 'Ended.', schema: 'BoardSessionEnded' } }, errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/duplicate', tag, summary: 'Duplicate a board', credential: 'board',
    description: 'Copies objects, frames, config, webhook URL and external data; the copy gets new links, timestamps and the default expiry. Zones are copied as plain frames (no assignment: participants are not copied), and the objects inside them into the board document of the copy.',
    responses: { 201: { description: 'The copy.', schema: 'BoardDuplicated' } }, errors: [],
  },
  {
    method: 'patch', path: '/boards/{boardId}/archive', tag, summary: 'Archive or restore a board', credential: 'board',
    description: 'Toggles between `active` and `archived`.',
    responses: { 200: { description: 'The new status, with `archived_at` or `restored_at`.', schema: 'BoardArchiveToggled' } }, errors: [409],
  },
  {
    method: 'post', path: '/boards/{boardId}/objects', tag: 'Objects', summary: 'Add an object', credential: 'board', body: { name: 'ObjectInput', schema: objectInputSchema },
    description: "Written into the board's live document (or the zone's, inside a zone). `data` must satisfy the object type's registered schema (422).",
    responses: { 201: { description: 'The object.', schema: 'BoardObject' } }, errors: [422],
  },
  {
    method: 'get', path: '/boards/{boardId}/elements', tag: 'Objects', summary: 'List the objects', credential: 'board', query: listElementsQuerySchema,
    description: 'The objects the caller may see, oldest first (`created_at`, then `id`). Paged by default; `pagination=false` answers every object as a plain array (then `limit` and `offset` are refused).',
    responses: { 200: { description: 'A page, or with `pagination=false` the whole list.', schema: { oneOf: [schemaRef('ElementPage'), listOf(schemaRef('BoardObject'))] } } },
    errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}/objects/{objectId}', tag: 'Objects', summary: 'Read an object', credential: 'board',
    responses: { 200: { description: 'The object.', schema: 'BoardObject' } }, errors: [],
  },
  {
    method: 'patch', path: '/boards/{boardId}/objects/{objectId}', tag: 'Objects', summary: 'Change an object', credential: 'board', body: { name: 'ObjectPatch', schema: objectPatchSchema },
    description: '`data` is replaced whole. A locked object refuses guests; an object is not carried between zones by an edit (409).',
    responses: { 200: { description: 'The object.', schema: 'BoardObject' } }, errors: [409, 422],
  },
  {
    method: 'delete', path: '/boards/{boardId}/objects/{objectId}', tag: 'Objects', summary: 'Delete an object', credential: 'board',
    responses: noContent('Deleted.'), errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/participant-links', tag: 'Participant links', summary: "Issue a user's personal link", credential: 'board',
    body: { name: 'IssueParticipantLinkRequest', schema: issueParticipantLinkSchema },
    description: "A board token bound to one user: the only credential (besides that user's JWT) that owns the zones assigned to `user_id`. Host only.",
    responses: { 201: { description: 'Issued.', schema: 'ParticipantLink' }, 200: { description: 'The user already had one: that link.', schema: 'ParticipantLink' } },
    errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/session-participants', tag: 'Participant links', summary: 'Join through the shared guest link as a session participant', credential: 'board',
    body: { name: 'StartSessionParticipantRequest', schema: startSessionParticipantSchema },
    description:
      'With the shared guest link only (403 otherwise). Mints a participant id a zone may be assigned to (`assigned_participant_id`) and its resume credential, ' +
      'a board token for this device alone: present it (REST or socket) to be that participant; the id alone owns nothing. ' +
      'A socket that joins with the shared guest link gets the same in a `session:participant` message.',
    responses: { 201: { description: 'Minted.', schema: 'SessionParticipant' } },
    errors: [409],
  },
  {
    method: 'get', path: '/boards/{boardId}/participant-links', tag: 'Participant links', summary: 'List the personal links', credential: 'board',
    responses: { 200: { description: 'The links (host only).', schema: listOf(schemaRef('ParticipantLink')) } }, errors: [],
  },
  {
    method: 'delete', path: '/boards/{boardId}/participant-links/{userId}', tag: 'Participant links', summary: 'Revoke a personal link', credential: 'board',
    description: "Closes the link's sockets at once.",
    responses: noContent('Revoked.'), errors: [],
  },
];
