/**
 * The bridge between the board page and a component's sandboxed frame (plan "The bridge"):
 * the messages each side may send, and the check every message from a frame passes before the
 * page acts on it. A frame is code of anyone who published a component: nothing it sends is
 * trusted, so each method has its exact shape and anything else is dropped (and counted).
 */

export const PROTOCOL = 1;
/** Largest message a frame may send, measured as JSON text. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Messages a frame may send per second; the rest of that second's are dropped. */
export const MAX_MESSAGES_PER_SECOND = 100;
/** Nesting allowed in a value a frame sends (props, storage values, payloads). */
const MAX_DEPTH = 32;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** A request's id, echoed in its response. */
export type RequestId = string | number;

/** What a frame asks of the page, once its shape is checked. */
export type ComponentMessage =
  | { type: 'data.request'; id: RequestId; params: Record<string, string | number | boolean> }
  | { type: 'storage.get'; id: RequestId }
  | { type: 'storage.set'; id: RequestId; key: string; value: JsonValue }
  | { type: 'props.set'; id: RequestId; props: JsonObject }
  | { type: 'event.emit'; name: string; payload: JsonValue }
  | { type: 'action'; id: RequestId; action_id: string; action_label?: string; action_metadata?: JsonObject };

export type ComponentRequest = Exclude<ComponentMessage, { type: 'event.emit' }>;

/** What the page sends a frame: the init over `window.postMessage`, everything else over the port. */
export interface BridgeInit {
  type: 'bridge:init';
  protocol: typeof PROTOCOL;
  object: { id: string; width: number; height: number };
  props: JsonObject;
  role: 'host' | 'guest';
  storage: JsonObject;
}

export type HostMessage =
  | { type: 'response'; id: RequestId; result: unknown }
  | { type: 'response'; id: RequestId; error: { message: string } }
  | { type: 'props.update'; props: JsonObject }
  | { type: 'storage.update'; key: string; value: JsonValue }
  | { type: 'event'; name: string; payload: JsonValue; object_id: string };

/** Why a message was dropped. */
export type Refusal = 'malformed' | 'oversize';

export type Parsed = { ok: true; message: ComponentMessage } | { ok: false; refusal: Refusal };

/** Event names as the manifest's `globalEvents` write them (`timer:tick`). */
const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9:._\-/]{0,99}$/;
const MAX_KEY_LENGTH = 200;
const MAX_PARAMS = 50;

type Fields = Record<string, unknown>;
type Check = (message: Fields) => ComponentMessage | null;

/** Each method: its allowed fields and how they are read (null: malformed). */
const METHODS: Record<ComponentMessage['type'], { fields: string[]; read: Check }> = {
  'data.request': {
    fields: ['params'],
    read: (m) => {
      const params = m.params === undefined ? {} : scalarParams(m.params);
      return params ? { type: 'data.request', id: m.id as RequestId, params } : null;
    },
  },
  'storage.get': { fields: [], read: (m) => ({ type: 'storage.get', id: m.id as RequestId }) },
  'storage.set': {
    fields: ['key', 'value'],
    read: (m) => (isName(m.key, MAX_KEY_LENGTH) && m.value !== undefined ? { type: 'storage.set', id: m.id as RequestId, key: m.key, value: m.value as JsonValue } : null),
  },
  'props.set': {
    fields: ['props'],
    read: (m) => (isPlainObject(m.props) ? { type: 'props.set', id: m.id as RequestId, props: m.props as JsonObject } : null),
  },
  'event.emit': {
    fields: ['name', 'payload'],
    read: (m) => (typeof m.name === 'string' && EVENT_NAME.test(m.name) ? { type: 'event.emit', name: m.name, payload: (m.payload ?? null) as JsonValue } : null),
  },
  action: {
    fields: ['action_id', 'action_label', 'action_metadata'],
    read: (m) => {
      if (!isName(m.action_id, MAX_KEY_LENGTH)) return null;
      if (m.action_label !== undefined && (typeof m.action_label !== 'string' || m.action_label.length > 500)) return null;
      if (m.action_metadata !== undefined && !isPlainObject(m.action_metadata)) return null;
      const message: ComponentMessage = { type: 'action', id: m.id as RequestId, action_id: m.action_id };
      if (m.action_label !== undefined) message.action_label = m.action_label;
      if (m.action_metadata !== undefined) message.action_metadata = m.action_metadata as JsonObject;
      return message;
    },
  },
};

/**
 * Checks one message a frame sent over its port: a known method, exactly its fields, every
 * value plain JSON (no functions, dates, buffers, blobs or ports smuggled in by structured
 * clone) and at most MAX_MESSAGE_BYTES as JSON text.
 */
export function parseComponentMessage(data: unknown): Parsed {
  const size = jsonSize(data, 0, { left: MAX_MESSAGE_BYTES });
  if (size === 'oversize') return { ok: false, refusal: 'oversize' };
  if (size === 'invalid' || !isPlainObject(data) || typeof data.type !== 'string' || !Object.hasOwn(METHODS, data.type)) return { ok: false, refusal: 'malformed' };
  const method = METHODS[data.type as ComponentMessage['type']];
  const request = data.type !== 'event.emit';
  const allowed = new Set(['type', ...(request ? ['id'] : []), ...method.fields]);
  if (Object.keys(data).some((key) => !allowed.has(key))) return { ok: false, refusal: 'malformed' };
  if (request && !isRequestId(data.id)) return { ok: false, refusal: 'malformed' };
  const message = method.read(data);
  return message ? { ok: true, message } : { ok: false, refusal: 'malformed' };
}

/** Whether a value is a request id a response can echo: a short string or a safe integer. */
export function isRequestId(value: unknown): value is RequestId {
  return (typeof value === 'string' && value.length > 0 && value.length <= 128) || Number.isSafeInteger(value);
}

/**
 * The size of a value as JSON text (roughly: strings count their UTF-16 length), walking it
 * once: 'invalid' for anything JSON cannot hold, 'oversize' as soon as the budget runs out.
 */
function jsonSize(value: unknown, depth: number, budget: { left: number }): number | 'invalid' | 'oversize' {
  if (depth > MAX_DEPTH) return 'invalid';
  let size: number;
  if (value === null || typeof value === 'boolean') size = 5;
  else if (typeof value === 'number') size = Number.isFinite(value) ? 24 : NaN;
  else if (typeof value === 'string') size = value.length + 2;
  else if (Array.isArray(value)) size = 2 + value.length;
  else if (isPlainObject(value)) size = 2;
  else return 'invalid';
  if (Number.isNaN(size)) return 'invalid';
  budget.left -= size;
  if (budget.left < 0) return 'oversize';
  const children: [string | null, unknown][] = Array.isArray(value) ? value.map((item) => [null, item]) : isPlainObject(value) ? Object.entries(value) : [];
  for (const [key, child] of children) {
    if (key !== null) budget.left -= key.length + 4;
    const inner = jsonSize(child, depth + 1, budget);
    if (typeof inner !== 'number') return inner;
    size += inner + (key === null ? 0 : key.length + 4);
  }
  return budget.left < 0 ? 'oversize' : size;
}

/** An object made by `{…}` (or structured clone of one): not an array, a Date, a Map or a class instance. */
export function isPlainObject(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isName(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function scalarParams(value: unknown): Record<string, string | number | boolean> | null {
  if (!isPlainObject(value)) return null;
  const entries = Object.entries(value);
  if (entries.length > MAX_PARAMS) return null;
  for (const [name, param] of entries) {
    if (!isName(name, 100)) return null;
    if (typeof param !== 'string' && typeof param !== 'boolean' && !(typeof param === 'number' && Number.isFinite(param))) return null;
  }
  return value as Record<string, string | number | boolean>;
}
