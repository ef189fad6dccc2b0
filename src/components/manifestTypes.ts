/** The component manifest's shape (docs/components.md), every section with its defaults applied. */
import type { FieldError } from '../errors.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type ValueType = 'string' | 'number' | 'boolean' | 'array' | 'object';
export type UiWidget = 'text' | 'textarea' | 'richtext' | 'number' | 'slider' | 'stepper' | 'radio' | 'select' | 'buttons' | 'color' | 'color-array';
/** What a prop's value (or an item of an array value, or a storage key's value) may be. */
export interface ValueSpec {
  type: ValueType;
  /** Only for `string` and `number` values. */
  enum?: (string | number)[];
  /** Only for `number` values. */
  minimum?: number;
  maximum?: number;
  /** Only for `array` values. */
  items?: ValueSpec;
}
export interface PropSpec extends ValueSpec {
  default: JsonValue;
  description?: string;
  ui?: { label?: string; placeholder?: string; widget?: UiWidget };
}
export interface StorageKeySpec extends ValueSpec {
  default?: JsonValue;
  description?: string;
  maxItems?: number;
}
export type Visibility = 'shared' | 'private' | 'anonymous';
export type Access = 'read' | 'write' | '*';
export interface RoleAccess<T extends string> {
  host: T[];
  guest: T[];
}
/** `30s`, `1m`, `24h`, `7d`. */
export type Duration = string;
export interface BackendEndpoint {
  /** Path the component calls (`/quotes`); also how permissions.backend names it. */
  path: string;
  /** http(s) URL the call is forwarded to. */
  target: string;
  auth?: { type: string; name?: string; value?: string };
  rateLimit?: { requests: number; window: Duration };
}
export interface ConnectorPort {
  id: string;
  position?: string;
  offset?: number;
  type?: string;
  accepts?: string[];
  outputs?: string[];
}
type Options = boolean | { [key: string]: JsonValue };
export interface PreviewGenerator {
  selector?: string;
  width?: number;
  height?: number;
  scale?: number;
}

/**
 * A validated manifest.json with every default applied. Top-level keys this version does not
 * know are kept as sent (a later manifest schema may add sections) but are not typed here.
 */
export interface Manifest {
  name: string;
  version: string;
  title: string;
  description: string;
  /** Relative path of the main file inside the package, NFC-normalised like the package's paths. */
  entry: string;
  author?: string;
  license?: string;
  repository?: string;
  keywords?: string[];
  /** Package paths of style sheets, as sent (one path or several). */
  styles?: string | string[];
  dimensions: { width: number; height: number; minWidth: number; minHeight: number; maxWidth?: number; maxHeight?: number; resizable: boolean; aspectRatio: '16:9' | '4:3' | null };
  props: Record<string, PropSpec>;
  /** `visibility` holds every key of `schema` (`shared` unless declared otherwise) and no other. */
  storage: { schema: Record<string, StorageKeySpec>; visibility: Record<string, Visibility> };
  settings: { mode: 'auto' | 'custom'; entry?: string; width: number; height: number };
  preview: { mode: 'auto' | 'manual' | 'disabled'; format: 'svg' | 'png' | 'webp'; fallback?: string; staleIndicator: boolean; staleTimeout: number; generator?: PreviewGenerator };
  rendering: { lazyLoad: boolean; viewport: { margin: number }; priority: 'low' | 'normal' | 'high'; keepAlive: boolean; keepAliveTimeout: number };
  backend: { endpoints: BackendEndpoint[] };
  secrets: Record<string, { description?: string; required: boolean; scope: 'organization' | 'board' | 'user'; rotatable: boolean }>;
  /** `backend` lists `*` or endpoint paths of backend.endpoints. Defaults: see MANIFEST_SCHEMA. */
  permissions: { storage: RoleAccess<Access>; props: RoleAccess<Access>; backend: RoleAccess<string> };
  globalEvents: { emit: string[]; listen: string[] };
  presence: { enabled: boolean; throttle: number; showCursors: boolean };
  undoRedo: { enabled: boolean; maxHistory: number; groupingTimeout: number };
  debug: { remoteLogs: boolean; logLevel: 'debug' | 'info' | 'warn' | 'error'; retention: Duration };
  webhooks: Record<string, { events: string[]; filter?: string | { [key: string]: JsonValue }; endpoint?: string; secret?: string }>;
  export: { formats: ('csv' | 'json' | 'xlsx' | 'pdf')[]; customFormats: { [key: string]: JsonValue }[] };
  connectors: { enabled: boolean; ports: ConnectorPort[]; validation?: { [key: string]: JsonValue } };
  accessibility: { keyboardNavigation: boolean; screenReaderSupport: boolean; highContrastSupport: boolean; reduceMotionSupport: boolean; role?: string; label?: string };
  /** `supportedLocales` defaults to `[defaultLocale]` and always holds it. */
  i18n: { defaultLocale: string; supportedLocales: string[]; translations: Record<string, { [key: string]: JsonValue }>; dateFormat: 'auto' | 'ISO' | 'locale'; numberFormat?: string };
  offline: { enabled: boolean; persistence: 'indexeddb' | 'localstorage' | 'none'; maxPendingOperations: number; retryStrategy: 'exponential' | 'linear' | 'immediate' };
  performance: { rateLimit?: { debounce?: number; throttle?: number; maxBurst?: number }; batching?: { enabled: boolean; maxBatchSize?: number; flushInterval?: number } };
  runtimeAssets: { enabled: boolean; maxFileSize: number; maxTotalStorage: number; allowedTypes?: string[]; imageOptimization?: Options; thumbnails?: Options };
  transient: { enabled: boolean; maxUpdatesPerSecond: number; maxKeys: number; maxPayloadSize: number; persistOnDisconnect: boolean; persistOnUnload: boolean };
  marketplace: { category?: string; tags: string[]; pricing: 'free' | 'paid' | 'freemium'; screenshots: string[] };
  /** Semver range of the versions migrated from → package path of the script. */
  migrations: Record<string, string>;
}

export type ManifestResult = { ok: true; manifest: Manifest } | { ok: false; details: FieldError[] };
