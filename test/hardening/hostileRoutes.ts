/**
 * Every create and patch route of the published API, for hostileInput.test.ts: its
 * path, the credentials it accepts, a valid body (that near-valid plans damage one field of),
 * and the board it writes to, which must still read after each call.
 */

/** The board hostile calls write to, with a frame for each frame route. */
export interface Arena {
  boardId: string;
  hostToken: string;
  guestToken: string;
  frames: { patch: string; clone: string; assign: string; bulk: [string, string] };
  /** Its expiry (epoch ms): a hostile PATCH may legitimately set it to now. */
  expiresAt: number;
  /** Bytes of accepted bodies written to it (a full arena is replaced, so reading it stays cheap). */
  storedBytes: number;
  /** Expired or unreadable: the next call opens a new arena. */
  retired: boolean;
}

/** What the routes need beyond the arena: credentials and ids made at setup. */
export interface Fixtures {
  apiKey: string;
  adminToken: string;
  /** Key of a second organization: webhook subscriptions and object types go there, away from the boards. */
  otherKey: string;
  subscriptionId: string;
  /** An organization whose plan the admin PATCH may change, and where users are created. */
  spareOrganizationId: string;
  userEmail: string;
  userPassword: string;
  /** The latest refresh token issued (each refresh replaces it). */
  refreshToken: string;
}

export interface RouteContext {
  board: Arena;
  fixtures: Fixtures;
  /** A number never returned before (unique names and emails). */
  unique: () => number;
}

export type Credential = 'api key' | 'host token' | 'guest token' | 'other organization key' | 'admin token' | 'no credential';

export function headersFor(credential: Credential, { board, fixtures }: RouteContext): Record<string, string> {
  switch (credential) {
    case 'api key':
      return { 'x-api-key': fixtures.apiKey };
    case 'host token':
      return { authorization: `Bearer ${board.hostToken}` };
    case 'guest token':
      return { authorization: `Bearer ${board.guestToken}` };
    case 'other organization key':
      return { 'x-api-key': fixtures.otherKey };
    case 'admin token':
      return { authorization: `Bearer ${fixtures.adminToken}` };
    case 'no credential':
      return {};
  }
}

/** A board that must still read after a call, with its expiry when known (an expired board answers 410). */
export interface WrittenBoard {
  id: string;
  expiresAt?: number;
}

export interface HostileRoute {
  name: string;
  method: 'POST' | 'PATCH';
  path(context: RouteContext): string;
  credentials: Credential[];
  body(context: RouteContext): Record<string, unknown>;
  /** The board the call wrote to, or created (read from its 2xx body). */
  boardOf?(context: RouteContext, success: any): WrittenBoard | undefined;
  /** What a 2xx teaches the next calls (a new expiry, a new refresh token). */
  learn?(context: RouteContext, success: any): void;
}

const BOARD_CALLERS: Credential[] = ['api key', 'host token', 'guest token'];

const component = { type: 'quiz', url: 'https://cdn.invalid/quiz.js', version: '1.0.0', props: { question: 'Why?', choices: ['a', 'b'] } };
const boardObject = { type: 'sticky', data: { text: 'hello', tags: ['a'], nested: { n: 1 } }, position: { x: 10, y: 20 }, width: 120, height: 80 };

const createBoardBody = () => ({
  title: 'Hostile board',
  external_id: 'ext-1',
  owner_external_id: 'owner-1',
  expires_in_hours: 24,
  config: { max_participants: 10, allow_anonymous: true, components: [component] },
  initial_objects: [boardObject],
  webhook_url: 'https://hooks.invalid/board',
  external_data: { course: 'c-1', week: 3 },
  is_sandbox: true,
  mock_external_data: { students: [{ id: 's-1' }] },
  data_provider: { type: 'webhook', webhook_url: 'https://provider.invalid/data', method: 'GET', headers: { 'x-a': 'b' }, cache_ttl: 60 },
});

const createdBoard = (_context: RouteContext, success: any): WrittenBoard | undefined =>
  typeof success?.board_uuid === 'string' ? { id: success.board_uuid, expiresAt: Date.parse(success.expires_at) } : undefined;
const arenaBoard = ({ board }: RouteContext): WrittenBoard => ({ id: board.boardId, expiresAt: board.expiresAt });
const onArena = (suffix: string) => ({ board }: RouteContext) => `/boards/${board.boardId}${suffix}`;
const onFrame = (frame: keyof Omit<Arena['frames'], 'bulk'>, action: string) => ({ board }: RouteContext) =>
  `/boards/${board.boardId}/frames/${board.frames[frame]}${action}`;
const keepRefreshToken = ({ fixtures }: RouteContext, success: any) => {
  if (typeof success.refresh_token === 'string') fixtures.refreshToken = success.refresh_token;
};

const boardRoutes: HostileRoute[] = [
  { name: 'POST /boards', method: 'POST', path: () => '/boards', credentials: ['api key'], body: createBoardBody, boardOf: createdBoard },
  { name: 'POST /boards/create', method: 'POST', path: () => '/boards/create', credentials: ['api key'], body: createBoardBody, boardOf: createdBoard },
  {
    name: 'PATCH /boards/:id',
    method: 'PATCH',
    path: onArena(''),
    credentials: BOARD_CALLERS,
    body: () => ({ title: 'Renamed', expires_in_hours: 48, webhook_url: 'https://hooks.invalid/patched', config: { max_participants: 20, allow_anonymous: true, components: [component] } }),
    boardOf: arenaBoard,
    learn: ({ board }, success) => {
      board.expiresAt = Date.parse(success.expires_at);
    },
  },
  { name: 'POST /boards/:id/objects', method: 'POST', path: onArena('/objects'), credentials: BOARD_CALLERS, body: () => structuredClone(boardObject), boardOf: arenaBoard },
  {
    name: 'POST /boards/:id/participant-links',
    method: 'POST',
    path: onArena('/participant-links'),
    credentials: BOARD_CALLERS,
    body: () => ({ user_id: 'student-9', user_name: 'Student Nine', external_user_id: 'lms-9', external_source: 'lms' }),
    boardOf: arenaBoard,
  },
];

const frameRoutes: HostileRoute[] = [
  {
    name: 'POST /boards/:id/frames',
    method: 'POST',
    path: onArena('/frames'),
    credentials: BOARD_CALLERS,
    body: () => ({
      name: 'Frame',
      order: 3,
      bounds_x: 0,
      bounds_y: 0,
      bounds_width: 200,
      bounds_height: 200,
      lock_mode: 'none',
      background_color: '#336699',
      visibility: 'active',
      parent_frame_id: null,
      assigned_participant_id: null,
      assigned_user_id: null,
    }),
    boardOf: arenaBoard,
  },
  {
    name: 'PATCH /boards/:id/frames/:frameId',
    method: 'PATCH',
    path: onFrame('patch', ''),
    credentials: BOARD_CALLERS,
    body: () => ({ name: 'Patched', order: 2, bounds_x: -100_000, bounds_y: -50_000, bounds_width: 300, bounds_height: 300, lock_mode: 'soft', background_color: '#abcdef', visibility: 'active' }),
    boardOf: arenaBoard,
  },
  {
    name: 'POST /boards/:id/frames/:frameId/clone',
    method: 'POST',
    path: onFrame('clone', '/clone'),
    credentials: BOARD_CALLERS,
    body: () => ({ offsetX: 10, offsetY: 400, name: 'Clone' }),
    boardOf: arenaBoard,
  },
  {
    name: 'POST /boards/:id/frames/:frameId/assign',
    method: 'POST',
    path: onFrame('assign', '/assign'),
    credentials: BOARD_CALLERS,
    body: () => ({ user_id: 'student-1', participant_id: 'participant-1' }),
    boardOf: arenaBoard,
  },
  {
    name: 'POST /boards/:id/zones/bulk-assign',
    method: 'POST',
    path: onArena('/zones/bulk-assign'),
    credentials: BOARD_CALLERS,
    body: ({ board }) => ({ assignments: [{ frame_id: board.frames.bulk[0], user_id: 'student-2' }, { frame_id: board.frames.bulk[1], user_id: 'student-3' }] }),
    boardOf: arenaBoard,
  },
];

const organizationRoutes: HostileRoute[] = [
  {
    name: 'POST /webhooks/subscriptions',
    method: 'POST',
    path: () => '/webhooks/subscriptions',
    credentials: ['other organization key'],
    body: () => ({ url: 'https://hooks.invalid/new', events: ['board.created', 'object.*'], description: 'hostile' }),
  },
  {
    name: 'PATCH /webhooks/subscriptions/:id',
    method: 'PATCH',
    path: ({ fixtures }) => `/webhooks/subscriptions/${fixtures.subscriptionId}`,
    credentials: ['other organization key'],
    body: () => ({ url: 'https://hooks.invalid/changed', events: ['*'], is_active: true, description: 'changed' }),
  },
  {
    name: 'POST /object-types',
    method: 'POST',
    path: () => '/object-types',
    credentials: ['other organization key'],
    body: ({ unique }) => ({
      typeName: `hostile-type-${unique()}`,
      displayName: 'Hostile type',
      category: 'tests',
      schema: { type: 'object', properties: { text: { type: 'string', maxLength: 100 }, size: { type: 'integer', minimum: 0 } }, required: ['text'] },
    }),
  },
  { name: 'POST /admin/organizations', method: 'POST', path: () => '/admin/organizations', credentials: ['admin token'], body: () => ({ name: 'Hostile org', plan: 'starter' }) },
  {
    name: 'PATCH /admin/organizations/:id',
    method: 'PATCH',
    path: ({ fixtures }) => `/admin/organizations/${fixtures.spareOrganizationId}`,
    credentials: ['admin token'],
    body: () => ({ plan: 'business' }),
  },
  {
    name: 'POST /admin/users',
    method: 'POST',
    path: () => '/admin/users',
    credentials: ['admin token'],
    body: ({ fixtures, unique }) => ({ email: `hostile-${unique()}@example.com`, password: 'long enough password', organizationId: fixtures.spareOrganizationId, name: 'Hostile user' }),
  },
  {
    name: 'POST /auth/login',
    method: 'POST',
    path: () => '/auth/login',
    credentials: ['no credential'],
    body: ({ fixtures }) => ({ email: fixtures.userEmail, password: fixtures.userPassword }),
    learn: keepRefreshToken,
  },
  {
    name: 'POST /auth/refresh',
    method: 'POST',
    path: () => '/auth/refresh',
    credentials: ['no credential'],
    body: ({ fixtures }) => ({ refresh_token: fixtures.refreshToken }),
    learn: keepRefreshToken,
  },
];

export const ROUTES: readonly HostileRoute[] = [...boardRoutes, ...frameRoutes, ...organizationRoutes];
