import type { SchemaObject } from 'ajv';
import type { JsonSchema } from './jsonSchema.js';

/**
 * How a route authenticates (http/auth.ts, http/boardCaller.ts). Each names the operation's
 * security requirement and the refusals that come with it (openApiSecurity.ts).
 */
export type Credential =
  /** `X-API-Key` (or the deprecated `Authorization: Bearer <API key>`). */
  | 'apiKey'
  /** The API key, or a board access token of that board (bearer header or `?token=`). */
  | 'board'
  /** The API key, or a user's JWT. */
  | 'apiKeyOrUser'
  /** `Authorization: Bearer $ADMIN_TOKEN`. */
  | 'admin'
  /** The API key as the `X-API-Key` header or as the multipart form field `apiKey`. */
  | 'publish'
  /** No credential (the body is one, or the resource is public). */
  | 'none';

/** A documented response header. */
export interface HeaderSpec {
  description: string;
  schema: JsonSchema;
}

/** A response the route writes itself (its successes, redirects, MCP's refusals), as opposed to the error catalogue's. */
export interface RouteResponse {
  description: string;
  /** A components.schemas name or an inline schema; absent: no body. */
  schema?: string | JsonSchema;
  /** Default `application/json`. */
  contentType?: string;
  headers?: Record<string, HeaderSpec>;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One operation of the API, as the route registers it. */
export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI path template below `/api/v1`, such as `/boards/{boardId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  credential: Credential;
  /** The schema the route validates its query string with (http/validate.ts `validateQuery`). */
  query?: SchemaObject;
  /** The schema the route validates its JSON body with (`validateBody`), published under `name`. */
  body?: { name: string; schema: SchemaObject };
  /** A body that is not JSON (`multipart/form-data`): its content type and schema. */
  rawBody?: { contentType: string; schema: JsonSchema; description: string };
  /** By status code. */
  responses: Record<number, RouteResponse>;
  /** Refusals the route itself can answer, beyond its credential's, its body's and its query's (openApiSecurity.ts). */
  errors: number[];
  deprecated?: boolean;
}
