import { readFileSync } from 'node:fs';
import type { SchemaObject } from 'ajv';
import { PERSONAS } from '../../agents/agent.js';
import { lazy } from '../../util/lazy.js';
import { BODY_STRUCTURE_LIMITS, JSON_BODY_LIMIT_BYTES } from '../jsonBody.js';
import { ERROR_SCHEMAS, errorResponseName, errorResponses } from './errorResponses.js';
import { openApiSchema, schemaRef, type JsonSchema } from './jsonSchema.js';
import { CREDENTIALS, SECURITY_SCHEMES } from './openApiSecurity.js';
import { ACCOUNT_OPERATIONS } from './operations/accountOperations.js';
import { BOARD_OPERATIONS } from './operations/boardOperations.js';
import { COMPONENT_OPERATIONS } from './operations/componentOperations.js';
import { AGENT_OPERATIONS, FRAME_OPERATIONS } from './operations/frameAgentOperations.js';
import type { OperationSpec, RouteResponse } from './operationSpec.js';
import { ACCOUNT_SCHEMAS } from './schemas/accountSchemas.js';
import { BOARD_SCHEMAS } from './schemas/boardSchemas.js';
import { COMPONENT_SCHEMAS } from './schemas/componentSchemas.js';
import { FRAME_AGENT_SCHEMAS } from './schemas/frameAgentSchemas.js';

/** Every operation of /api/v1, as the routes register them. */
export const OPERATIONS: readonly OperationSpec[] = [...BOARD_OPERATIONS, ...FRAME_OPERATIONS, ...AGENT_OPERATIONS, ...COMPONENT_OPERATIONS, ...ACCOUNT_OPERATIONS];

/** The service's version, as package.json names it (the same depth from src/ and from dist/). */
function serviceVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

const DESCRIPTION = `A self-hosted, CRDT-first realtime collaborative whiteboard service.

Integrators create boards over this REST API and hand out the host and guest links each board
answers; browsers then edit a board together over WebSocket.

**Realtime.** \`ws(s)://<host>/api/v1/realtime?token=<board access token>\` speaks the Hocuspocus
protocol (Yjs): the document name is the \`board_uuid\`, or \`<board_uuid>/zones/<frame_id>\` for a
student zone's private document. A personal link's token (or \`user_id\`, \`user_name\`,
\`external_user_id\`, \`external_source\` in the URL next to a shared link) says who the participant
is. An invalid or expired token closes the socket with code 1008.

**Requests** are checked in one order: the credential (401), then what it may reach (the board,
frame, agent or component: 403, 404, 410), and only then the query and the body (400, 413): a
caller refused a resource gets the same answer whatever it sent. A JSON body may hold up to
${JSON_BODY_LIMIT_BYTES / 1_048_576} MB and ${BODY_STRUCTURE_LIMITS.maxValues.toLocaleString('en')} values (counted as their brackets, commas and colons);
a body refused for its size is answered 413 and the rest of it read and dropped before the
connection closes.

**Errors** use one body everywhere (\`statusCode\`, \`message\`, \`error\`, optional \`details[]\`,
\`timestamp\`, \`path\`); each status is listed on the operations that answer it. A 503 asks
the client to retry: the instance is shutting down, or a change could not be saved in time.

**Webhooks** are signed POSTs: \`X-Webhook-Signature\` is the lowercase hex HMAC-SHA256 of the raw
body keyed with the subscription's 64-character secret.`;

/** Path parameters, by the name the document gives them. */
const PATH_PARAMETERS: Record<string, string> = {
  boardId: "The board's `board_uuid`.",
  objectId: "The object's `id`.",
  frameId: "The frame's `id`.",
  agentId: "The agent's `id`.",
  userId: 'The `user_id` the personal link was issued to.',
  persona: `A persona: ${PERSONAS.map((persona) => `\`${persona}\``).join(', ')}.`,
  subscriptionId: "The subscription's `id`.",
  typeName: "The object type's `typeName`.",
  organizationId: "The organization's `id`.",
  type: 'A quota type (see `GET /quota`).',
  name: "The component's `name`.",
  version: 'A published semantic version.',
  spec: '`<name>@<version>`, the version an exact one or `latest`.',
  key: 'A key declared in the manifest\'s `storage.schema`.',
  path: 'A file inside the package; may hold slashes.',
};

/** The document, built on its first request and kept for the life of the process. */
export const openApiDocument = lazy(buildOpenApiDocument);

function buildOpenApiDocument(): JsonSchema {
  const requestSchemas: Record<string, JsonSchema> = {};
  const sources = new Map<string, SchemaObject>();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of OPERATIONS) {
    if (spec.body) {
      const { name, schema } = spec.body;
      // Two routes may share a body schema under one name (the deprecated create path), never two schemas one name.
      if (sources.has(name) && sources.get(name) !== schema) throw new Error(`two request schemas are named ${name}`);
      sources.set(name, schema);
      requestSchemas[name] = published(name, schema);
    }
    paths[spec.path] ??= {};
    paths[spec.path]![spec.method] = operationObject(spec);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Whiteboard service API', version: serviceVersion(), description: DESCRIPTION },
    servers: [{ url: '/api/v1', description: 'This service' }],
    tags: [...new Set(OPERATIONS.map((spec) => spec.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: uniquelyNamed([ERROR_SCHEMAS, requestSchemas, BOARD_SCHEMAS, FRAME_AGENT_SCHEMAS, COMPONENT_SCHEMAS, ACCOUNT_SCHEMAS]),
      responses: errorResponses(),
      parameters: Object.fromEntries(
        Object.entries(PATH_PARAMETERS).map(([name, description]) => [name, { name, in: 'path', required: true, description, schema: { type: 'string' } }]),
      ),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** One map of named schemas; a name given twice would silently lose one of them. */
function uniquelyNamed(groups: Record<string, JsonSchema>[]): Record<string, JsonSchema> {
  const merged: Record<string, JsonSchema> = {};
  for (const group of groups) {
    for (const [name, schema] of Object.entries(group)) {
      if (name in merged) throw new Error(`two schemas are named ${name}`);
      merged[name] = schema;
    }
  }
  return merged;
}

function published(name: string, schema: SchemaObject): JsonSchema {
  return openApiSchema(schema, `#/components/schemas/${name}`) as JsonSchema;
}

function operationObject(spec: OperationSpec): JsonSchema {
  const credential = CREDENTIALS[spec.credential];
  return {
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    operationId: operationId(spec),
    ...(spec.deprecated ? { deprecated: true } : {}),
    security: credential.security,
    parameters: [...pathParameters(spec.path), ...queryParameters(spec.query)],
    ...requestBody(spec),
    responses: { ...routeResponses(spec.responses), ...refusals(spec) },
  };
}

/** `post /boards/{boardId}/frames` → `postBoardsBoardIdFrames`. */
function operationId(spec: OperationSpec): string {
  const words = spec.path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return spec.method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    if (!PATH_PARAMETERS[name!]) throw new Error(`the path parameter {${name}} of ${path} is not described`);
    return { $ref: `#/components/parameters/${name}` };
  });
}

/** Each property of a route's query schema is one query parameter. */
function queryParameters(query: SchemaObject | undefined): JsonSchema[] {
  if (!query) return [];
  const { properties = {}, required = [] } = query as { properties?: Record<string, SchemaObject>; required?: string[] };
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    schema: openApiSchema(schema),
  }));
}

function requestBody(spec: OperationSpec): JsonSchema {
  if (spec.body) return { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(spec.body.name) } } } };
  if (spec.rawBody) {
    const { contentType, schema, description } = spec.rawBody;
    return { requestBody: { required: true, description, content: { [contentType]: { schema } } } };
  }
  return {};
}

function routeResponses(responses: Record<number, RouteResponse>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const schema = typeof response.schema === 'string' ? schemaRef(response.schema) : response.schema;
      return [
        status,
        {
          description: response.description,
          ...(response.headers ? { headers: response.headers } : {}),
          ...(schema ? { content: { [response.contentType ?? 'application/json']: { schema } } } : {}),
        },
      ];
    }),
  );
}

/**
 * The error statuses an operation can answer: its credential's, 400 and 413 for a body
 * (validation, malformed JSON, size), 400 for a query, its own, 500, and 503 (any request
 * reaching an instance that is shutting down; a write that could not be saved in time).
 */
function refusalStatuses(spec: OperationSpec): number[] {
  const statuses = new Set([...CREDENTIALS[spec.credential].errors, ...spec.errors, 500, 503]);
  if (spec.body || spec.rawBody) [400, 413].forEach((status) => statuses.add(status));
  if (spec.query) statuses.add(400);
  return [...statuses].sort((a, b) => a - b);
}

function refusals(spec: OperationSpec): Record<string, JsonSchema> {
  return Object.fromEntries(refusalStatuses(spec).map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
}
