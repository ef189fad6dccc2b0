import type { SchemaObject } from 'ajv';
import semver from 'semver';
import { COMPONENT_NAME } from './registryPaths.js';

/**
 * A relative path inside the package, as the package reader normalises them: no leading `/`,
 * drive letter or backslash, no `.`, `..` or empty segment, no control characters.
 */
export function isPackagePath(path: string): boolean {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (path.length === 0 || path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path) || /[\u0000-\u001f\u007f]/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** Canonical `MAJOR.MINOR.PATCH[-prerelease]` only: `v1.0.0` or build metadata would name one version two ways. */
export function isSemver(version: string): boolean {
  return semver.valid(version) === version;
}

export const FORMATS: Record<string, { check: (text: string) => boolean; message: string }> = {
  semver: { check: isSemver, message: 'must be a semantic version MAJOR.MINOR.PATCH, optionally -prerelease (no leading v, no leading zeros, no +build)' },
  'package-path': { check: isPackagePath, message: 'must be a relative path inside the package (no leading /, backslash, . or .. segments)' },
  // Names of Object.prototype members would read as present on every plain object (`props.constructor`).
  'plain-key': {
    check: (key) => key.length <= 64 && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) && !(key in Object.prototype),
    message: 'must start with a letter or _ and hold only letters, digits, _ and - (Object.prototype names such as constructor are reserved)',
  },
  'unreserved-name': { check: (name) => name !== 'latest', message: 'is reserved: `latest` always names the newest version' },
  'semver-range': { check: (range) => range.length <= 100 && semver.validRange(range) !== null, message: 'must be a semver range of versions (such as <2.0.0)' },
  'asset-ref': { check: (ref) => isPackagePath(ref) || /^https:\/\/\S+$/.test(ref), message: 'must be a package path or an https URL' },
};

// The fixed schema. Sections refuse fields they do not know (a typo such as `widht` would
// otherwise be dropped silently for a default); the top level keeps unknown keys.
const KEY = { type: 'string', maxLength: 64, format: 'plain-key' };
const EVENT = { type: 'string', maxLength: 100, pattern: '^(?:[a-z0-9_.:-]+\\*?|\\*)$' };
const LOCALE = { type: 'string', maxLength: 35, pattern: '^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$' };
const DURATION = { type: 'string', pattern: '^[1-9][0-9]{0,3}[smhd]$' };
const PATH = { type: 'string', maxLength: 255, format: 'package-path' };
const FREE_OBJECT = { type: 'object' };
const str = (maxLength: number, more: SchemaObject = {}): SchemaObject => ({ type: 'string', maxLength, ...more });
const withDefault = (schema: SchemaObject, fallback: unknown): SchemaObject => (fallback === undefined ? schema : { ...schema, default: fallback });
const int = (minimum: number, maximum: number, fallback?: number) => withDefault({ type: 'integer', minimum, maximum }, fallback);
const flag = (fallback?: boolean) => withDefault({ type: 'boolean' }, fallback);
const choice = (values: readonly (string | null)[], fallback?: string | null) => withDefault({ enum: [...values] }, fallback);
const list = (items: SchemaObject, maxItems: number, fallback?: unknown[]) => withDefault({ type: 'array', items, maxItems }, fallback);
const record = (values: SchemaObject, maxProperties: number, keys: SchemaObject = KEY): SchemaObject => ({
  type: 'object',
  maxProperties,
  propertyNames: keys,
  additionalProperties: values,
  default: {},
});
const object = (properties: Record<string, SchemaObject>, required: string[] = []): SchemaObject => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const section = (properties: Record<string, SchemaObject>): SchemaObject => ({ ...object(properties), default: {} });
const SIZE = 10_000;
const MS_HOUR = 3_600_000;

const VALUE_SPEC = {
  type: { enum: ['string', 'number', 'boolean', 'array', 'object'] },
  enum: { type: 'array', minItems: 1, maxItems: 100, items: { type: ['string', 'number'], maxLength: 500 } },
  minimum: { type: 'number' },
  maximum: { type: 'number' },
  items: { $ref: '#/$defs/valueSpec' },
};
const UI_WIDGETS = ['text', 'textarea', 'richtext', 'number', 'slider', 'stepper', 'radio', 'select', 'buttons', 'color', 'color-array'];
const PROP = object(
  { ...VALUE_SPEC, default: {}, description: str(500), ui: object({ label: str(200), placeholder: str(200), widget: choice(UI_WIDGETS) }) },
  ['type', 'default'],
);
const STORAGE_KEY = object({ ...VALUE_SPEC, default: {}, description: str(500), maxItems: int(1, 10_000) }, ['type']);
const ACCESS = { enum: ['read', 'write', '*'] };
const roleAccess = (items: SchemaObject, host: string[], guest: string[]) =>
  section({ host: list(items, 50, host), guest: list(items, 50, guest) });
const ENDPOINT = object(
  {
    path: str(255, { pattern: "^/[A-Za-z0-9._~:@!$&'()*+,;=/{}-]*$" }),
    target: str(2_048, { pattern: '^https?://\\S+$' }),
    auth: object({ type: str(50), name: str(200), value: str(2_000) }, ['type']),
    rateLimit: object({ requests: int(1, 100_000), window: DURATION }, ['requests', 'window']),
  },
  ['path', 'target'],
);
const PORT = object(
  { id: KEY, position: str(50), offset: { type: 'number', minimum: -SIZE, maximum: SIZE }, type: str(50), accepts: list(str(100), 50), outputs: list(str(100), 50) },
  ['id'],
);
const OPTIONS = { type: ['boolean', 'object'] };

export const MANIFEST_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['name', 'version', 'title', 'description', 'entry'],
  $defs: { valueSpec: object(VALUE_SPEC, ['type']) },
  properties: {
    name: str(64, { pattern: `^${COMPONENT_NAME}$`, format: 'unreserved-name' }),
    version: str(64, { format: 'semver' }),
    title: str(200, { minLength: 1 }),
    description: str(2_000),
    entry: PATH,
    author: str(200),
    license: str(100),
    repository: str(2_048),
    keywords: list(str(50), 20),
    styles: { type: ['string', 'array'], maxLength: 255, format: 'package-path', items: PATH, maxItems: 20 },
    dimensions: section({
      width: int(1, SIZE, 300),
      height: int(1, SIZE, 200),
      minWidth: int(1, SIZE, 200),
      minHeight: int(1, SIZE, 150),
      maxWidth: int(1, SIZE),
      maxHeight: int(1, SIZE),
      resizable: flag(true),
      aspectRatio: choice(['16:9', '4:3', null], null),
    }),
    props: record(PROP, 100),
    storage: section({ schema: record(STORAGE_KEY, 100), visibility: record(choice(['shared', 'private', 'anonymous']), 100) }),
    settings: section({ mode: choice(['auto', 'custom'], 'auto'), entry: PATH, width: int(1, SIZE, 400), height: int(1, SIZE, 500) }),
    preview: section({
      mode: choice(['auto', 'manual', 'disabled'], 'auto'),
      format: choice(['svg', 'png', 'webp'], 'svg'),
      fallback: PATH,
      staleIndicator: flag(true),
      staleTimeout: int(0, MS_HOUR, 5_000),
      generator: object({ selector: str(500), width: int(1, SIZE), height: int(1, SIZE), scale: { type: 'number', minimum: 0.1, maximum: 4 } }),
    }),
    rendering: section({
      lazyLoad: flag(true),
      viewport: section({ margin: int(0, SIZE, 200) }),
      priority: choice(['low', 'normal', 'high'], 'normal'),
      keepAlive: flag(false),
      keepAliveTimeout: int(0, MS_HOUR, 30_000),
    }),
    backend: section({ endpoints: list(ENDPOINT, 50, []) }),
    secrets: record(object({ description: str(500), required: flag(false), scope: choice(['organization', 'board', 'user'], 'organization'), rotatable: flag(false) }), 50),
    // Least privilege when a component says nothing: the host (the teacher) may do everything;
    // guests (students) see the component but change neither its shared state nor its
    // configuration, and call no backend endpoint (those spend the organization's secrets and
    // rate limits). A component meant for students to write to (a poll, a quiz) declares it.
    permissions: section({
      storage: roleAccess(ACCESS, ['read', 'write'], ['read']),
      props: roleAccess(ACCESS, ['read', 'write'], ['read']),
      backend: roleAccess(str(255, { pattern: '^(?:\\*|/\\S*)$' }), ['*'], []),
    }),
    globalEvents: section({ emit: list(EVENT, 50, []), listen: list(EVENT, 50, []) }),
    presence: section({ enabled: flag(false), throttle: int(0, SIZE, 50), showCursors: flag(true) }),
    undoRedo: section({ enabled: flag(false), maxHistory: int(1, 1_000, 50), groupingTimeout: int(0, 60_000, 1_000) }),
    debug: section({ remoteLogs: flag(false), logLevel: choice(['debug', 'info', 'warn', 'error'], 'error'), retention: withDefault(DURATION, '24h') }),
    webhooks: record(
      object({ events: list(EVENT, 50, []), filter: { type: ['string', 'object'], maxLength: 2_000 }, endpoint: str(2_048), secret: str(200) }),
      20,
    ),
    export: section({ formats: { ...list(choice(['csv', 'json', 'xlsx', 'pdf']), 4, []), uniqueItems: true }, customFormats: list(FREE_OBJECT, 20, []) }),
    connectors: section({ enabled: flag(false), ports: list(PORT, 50, []), validation: FREE_OBJECT }),
    accessibility: section({
      keyboardNavigation: flag(false),
      screenReaderSupport: flag(false),
      highContrastSupport: flag(false),
      reduceMotionSupport: flag(false),
      role: str(50),
      label: str(200),
    }),
    i18n: section({
      defaultLocale: withDefault(LOCALE, 'en'),
      supportedLocales: { ...list(LOCALE, 50), minItems: 1 },
      translations: record({ type: 'object', maxProperties: 1_000 }, 50, LOCALE),
      dateFormat: choice(['auto', 'ISO', 'locale'], 'auto'),
      numberFormat: str(50),
    }),
    offline: section({
      enabled: flag(false),
      persistence: choice(['indexeddb', 'localstorage', 'none'], 'indexeddb'),
      maxPendingOperations: int(1, 100_000, 1_000),
      retryStrategy: choice(['exponential', 'linear', 'immediate'], 'exponential'),
    }),
    performance: section({
      rateLimit: object({ debounce: int(0, 60_000), throttle: int(0, 60_000), maxBurst: int(1, 1_000) }),
      batching: object({ enabled: flag(false), maxBatchSize: int(1, 1_000), flushInterval: int(0, 60_000) }),
    }),
    runtimeAssets: section({
      enabled: flag(false),
      maxFileSize: int(1, 50 * 1024 * 1024, 10_485_760),
      maxTotalStorage: int(1, 1024 * 1024 * 1024, 104_857_600),
      allowedTypes: list(str(100, { pattern: '^[a-z]+/(?:\\*|[a-z0-9][a-z0-9.+-]*)$' }), 50),
      imageOptimization: OPTIONS,
      thumbnails: OPTIONS,
    }),
    transient: section({
      enabled: flag(false),
      maxUpdatesPerSecond: int(1, 120, 60),
      maxKeys: int(1, 100, 10),
      maxPayloadSize: int(1, 65_536, 1_024),
      persistOnDisconnect: flag(false),
      persistOnUnload: flag(false),
    }),
    marketplace: section({
      category: str(50),
      tags: list(str(50), 20, []),
      pricing: choice(['free', 'paid', 'freemium'], 'free'),
      screenshots: list(str(2_048, { format: 'asset-ref' }), 10, []),
    }),
    migrations: record(PATH, 100, { type: 'string', maxLength: 100, format: 'semver-range' }),
  },
};
