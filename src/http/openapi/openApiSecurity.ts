import type { JsonSchema } from './jsonSchema.js';
import type { Credential } from './operationSpec.js';

/** components.securitySchemes: every credential the API accepts (http/auth.ts, http/boardCaller.ts). */
export const SECURITY_SCHEMES: Record<string, JsonSchema> = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      "The organization's API key. Calls made with it count against the key's rate limits " +
      '(reported in `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`) and the daily API-call quota. ' +
      'On a board it acts as the host.',
  },
  ApiKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Deprecated: the API key sent as `Authorization: Bearer <API key>`. It works like `X-API-Key`; answers carry `Deprecation: true` and a `Sunset` date.',
  },
  BoardToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A board access token (the `token` of a host, guest or personal link), valid for that board only. The host link's token acts as the host, " +
      'a guest or personal link as a guest. Next to a host token, `X-User-Id` (or `?user_id=`) names the acting user.',
  },
  BoardTokenQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: 'The same board access token as the query parameter `token`, as access links carry it.',
  },
  UserToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A user's access token (`accessToken` of `POST /auth/login` or `POST /auth/refresh`).",
  },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description: "The operator's `ADMIN_TOKEN`. Without one configured, the admin API answers 404.",
  },
};

type SecurityRequirement = Record<string, string[]>;
const only = (...names: string[]): SecurityRequirement[] => names.map((name) => ({ [name]: [] }));

/** Who may call, and what an operation with that credential may be refused with besides its own errors. */
export const CREDENTIALS: Record<Credential, { security: SecurityRequirement[]; errors: number[] }> = {
  // 402: the daily API-call quota is used up; 429: the key's rate limit.
  apiKey: { security: only('ApiKey', 'ApiKeyBearer'), errors: [401, 402, 429] },
  // 403: another organization's board, a token of another board, or a guest where only the host may act; 410: the board expired.
  board: { security: only('ApiKey', 'BoardToken', 'BoardTokenQuery', 'ApiKeyBearer'), errors: [401, 402, 403, 404, 410, 429] },
  apiKeyOrUser: { security: only('ApiKey', 'UserToken', 'ApiKeyBearer'), errors: [401, 402, 429] },
  admin: { security: only('AdminToken'), errors: [401, 404] },
  // `{}`: the request may carry no header at all when its form carries the key.
  publish: { security: [...only('ApiKey'), {}], errors: [401, 402, 429] },
  none: { security: [], errors: [] },
};
