import type { SchemaObject } from 'ajv';
import type { PersonType, UserType } from '../../../boards/boardAccess.js';
import type { BoardRole } from '../../../boards/boardRole.js';
import type { Credential } from '../../boardCaller.js';
import { BOARD_STATUSES, createBoardSchema, objectInputSchema } from '../../../boards/schemas.js';
import { openApiSchema, propertyOf, schemaRef, type JsonSchema } from '../jsonSchema.js';
import { anyObject, count, everyValue, flag, isoTime, listOf, nullable, oneOfValues, record, text, url } from './common.js';

/** Response bodies of the Boards API, as boards/presenter.ts and http/routes/boardRoutes.ts write them. */

const ROLES = everyValue<BoardRole>()('host', 'guest');
const USER_TYPES = everyValue<UserType>()('verified-student', 'authenticated', 'anonymous', 'agent');
const CREDENTIALS = everyValue<Credential>()('api_key', 'host_link', 'guest_link', 'personal_link', 'session');
const CALLER_TYPES = [...everyValue<PersonType>()('verified-student', 'authenticated', 'anonymous'), 'organization'];

const status = oneOfValues(BOARD_STATUSES);
const boardUuid: JsonSchema = { type: 'string', format: 'uuid' };
/** A request schema's property as the response repeats it (the same bounds apply to what was stored). */
const requestProperty = (schema: SchemaObject, name: string) => openApiSchema(propertyOf(schema, name)) as JsonSchema;

const accessLinks = record({ host: url, guest: url });
/** A guest reading the board sees only the guest link (the host link would make it a host). */
const visibleAccessLinks = record({ host: url, guest: url }, ['guest']);

const boardCreatedFields = {
  board_uuid: boardUuid,
  title: text,
  external_id: nullable(text),
  status,
  created_at: isoTime,
  expires_at: isoTime,
  access_links: accessLinks,
  webhook_secret: { type: 'string', description: 'The signing secret of `webhook_url`, shown once: when the board was given one.' },
};
const createdRequired = Object.keys(boardCreatedFields).filter((name) => name !== 'webhook_secret');

const listItemFields = {
  board_uuid: boardUuid,
  title: text,
  external_id: nullable(text),
  owner_external_id: nullable(text),
  status,
  created_at: isoTime,
  updated_at: isoTime,
  expires_at: isoTime,
  participants_count: count,
  objects_count: { ...count, description: 'Objects in the board document and in every zone document the caller may read (the API key and the host: all of them).' },
};

/** A `config.components[]` entry; one this registry cannot serve carries the `error` a board page shows in its place. */
const pinnedComponent = (() => {
  const entry = propertyOf(propertyOf(createBoardSchema, 'config'), 'components').items as SchemaObject;
  const fields = openApiSchema(entry) as { properties: Record<string, JsonSchema>; required: string[] };
  const error = record({ statusCode: { type: 'integer', enum: [404, 410] }, error: text, message: text });
  return record({ ...fields.properties, error }, fields.required);
})();

const boardConfig = record({
  max_participants: { type: 'integer', minimum: 1 },
  allow_anonymous: flag,
  components: listOf(pinnedComponent),
});

const location = record({
  frameId: nullable(text),
  viewportBounds: record({ x: { type: 'number' }, y: { type: 'number' }, width: { type: 'number' }, height: { type: 'number' } }),
  at: isoTime,
});

const pagination = record({ total: count, limit: count, offset: count, has_more: flag });

export const BOARD_SCHEMAS: Record<string, JsonSchema> = {
  BoardObject: record(
    {
      id: text,
      type: text,
      data: requestProperty(objectInputSchema, 'data'),
      position: requestProperty(objectInputSchema, 'position'),
      width: { type: 'number' },
      height: { type: 'number' },
      created_at: isoTime,
      created_by: { ...nullable(text), description: 'The acting user; null for the API key and the shared guest link.' },
      updated_at: isoTime,
      updated_by: nullable(text),
      locked: { type: 'boolean', description: 'Set by a host or an agent: guests may not change the object.' },
      zone_id: { type: 'string', description: 'The zone whose private document holds the object, if any.' },
    },
    ['id', 'type', 'data', 'position', 'created_at', 'created_by'],
  ),
  Participant: record({ user_id: text, user_name: text, user_type: oneOfValues(USER_TYPES), role: oneOfValues(ROLES), joined_at: isoTime, color: text, location }, [
    'user_id',
    'user_type',
    'role',
    'joined_at',
    'color',
  ]),
  BoardCreated: record(boardCreatedFields, createdRequired),
  BoardDuplicated: record({ ...boardCreatedFields, source_board_uuid: boardUuid }, [...createdRequired, 'source_board_uuid']),
  BoardListItem: record(listItemFields),
  Board: record(
    {
      ...listItemFields,
      archived_at: isoTime,
      config: boardConfig,
      webhook_url: nullable(url),
      external_data: nullable(anyObject),
      is_sandbox: requestProperty(createBoardSchema, 'is_sandbox'),
      mock_external_data: requestProperty(createBoardSchema, 'mock_external_data'),
      data_provider: requestProperty(createBoardSchema, 'data_provider'),
      access_links: visibleAccessLinks,
      state: record({ version: count, objects: listOf(schemaRef('BoardObject')) }, ['version']),
      participants: { ...listOf(schemaRef('Participant')), description: 'With `includeParticipants=true`.' },
    },
    [...Object.keys(listItemFields), 'config', 'webhook_url', 'external_data', 'access_links', 'state'],
  ),
  BoardCaller: record({
    board_uuid: boardUuid,
    title: text,
    role: oneOfValues(ROLES),
    user_id: nullable(text),
    user_name: nullable(text),
    user_type: oneOfValues(CALLER_TYPES),
    credential: oneOfValues(CREDENTIALS),
    color: text,
    created_at: isoTime,
    expires_at: isoTime,
  }),
  BoardAccessLinks: record({ board_uuid: boardUuid, access_links: accessLinks }),
  BoardUpdated: record(
    { board_uuid: boardUuid, title: text, status, updated_at: isoTime, expires_at: isoTime, webhook_url: nullable(url), config: boardConfig, webhook_secret: text },
    ['board_uuid', 'title', 'status', 'updated_at', 'expires_at', 'webhook_url', 'config'],
  ),
  BoardSessionEnded: record({ board_uuid: boardUuid, session_ended_at: isoTime, status, message: text }),
  BoardArchiveToggled: record({ board_uuid: boardUuid, title: text, status, archived_at: isoTime, restored_at: isoTime, message: text }, [
    'board_uuid',
    'title',
    'status',
    'message',
  ]),
  ElementPage: record({ elements: listOf(schemaRef('BoardObject')), pagination }),
  SessionParticipant: record({ participant_id: text, user_name: nullable(text), token: text, link: url, expires_at: isoTime }),
  ParticipantLink: record({
    user_id: text,
    user_name: nullable(text),
    user_type: oneOfValues(everyValue<Exclude<PersonType, 'anonymous'>>()('verified-student', 'authenticated')),
    external_user_id: nullable(text),
    external_source: nullable(text),
    token: text,
    link: url,
    expires_at: isoTime,
    created_at: isoTime,
  }),
};
