import { grants, type Access, type ValueSpec } from '../../../src/components/manifestRules.js';
import type { ComponentApi } from './componentApi.js';
import type { JsonObject, JsonValue } from './protocol.js';
import { isPlainObject } from './protocol.js';

/** The parts of a component's manifest the page uses, with a manifest's defaults. */
export interface ClientManifest {
  name: string | null;
  version: string | null;
  title: string | null;
  props: Record<string, PropSpec>;
  rendering: { lazyLoad: boolean; margin: number; keepAlive: boolean; keepAliveTimeout: number };
  /** Roles allowed to change props (`permissions.props`: `write` or `*`). */
  propsWriters: { host: boolean; guest: boolean };
}

/** A prop as the manifest declares it (the server's ValueSpec: type, enum, bounds, items), with its default and label. */
export interface PropSpec extends ValueSpec {
  default: JsonValue;
  label?: string;
}

/** What the registry says of a component URL. */
export type ManifestAnswer =
  | { kind: 'ready'; manifest: ClientManifest }
  /** 410: its author deleted this version. */
  | { kind: 'deleted'; message: string }
  /** 404: no such published version. */
  | { kind: 'unpublished'; message: string };

/** What a manifest says when it says nothing (docs/components.md). */
export const DEFAULT_MANIFEST: ClientManifest = {
  name: null,
  version: null,
  title: null,
  props: {},
  rendering: { lazyLoad: true, margin: 200, keepAlive: false, keepAliveTimeout: 30_000 },
  propsWriters: { host: true, guest: false },
};

/**
 * Manifests by component URL, asked once per page (`GET …/component-manifest?url=`). When the
 * registry cannot be asked (offline, a server without the route) the defaults stand in: the
 * frame still runs, only its lazy loading and props defaults are the manifest defaults.
 */
export class ComponentManifests {
  private readonly answers = new Map<string, Promise<ManifestAnswer>>();

  constructor(private readonly api: ComponentApi) {}

  get(url: string): Promise<ManifestAnswer> {
    let answer = this.answers.get(url);
    if (!answer) {
      answer = this.ask(url);
      this.answers.set(url, answer);
    }
    return answer;
  }

  private async ask(url: string): Promise<ManifestAnswer> {
    const answer = await this.api.manifest(url);
    if (answer.status === 200) return { kind: 'ready', manifest: readManifest(answer.body) };
    if (answer.status === 410) return { kind: 'deleted', message: answer.message };
    // A route the server does not have yet answers "Route GET … not found": not the registry's word on the component.
    if (answer.status === 404 && !/^Route /.test(answer.message)) return { kind: 'unpublished', message: answer.message };
    // Offline or a failing server: asked again the next time a frame of this URL is made.
    if (answer.status === 0 || answer.status >= 500) this.answers.delete(url);
    return { kind: 'ready', manifest: DEFAULT_MANIFEST };
  }
}

/** The component's props: its object's `data.props` over the manifest's defaults. */
export function propsWithDefaults(manifest: ClientManifest, props: unknown): JsonObject {
  const given = isPlainObject(props) ? (props as JsonObject) : {};
  const merged: JsonObject = {};
  for (const [name, spec] of Object.entries(manifest.props)) merged[name] = structuredClone(spec.default);
  return Object.assign(merged, given);
}

/** Reads the route's answer defensively: whatever is missing or odd falls back to the default. */
function readManifest(body: unknown): ClientManifest {
  const root = isPlainObject(body) ? body : {};
  const manifest = isPlainObject(root.manifest) ? root.manifest : {};
  const rendering = isPlainObject(manifest.rendering) ? manifest.rendering : {};
  const viewport = isPlainObject(rendering.viewport) ? rendering.viewport : {};
  const permissions = isPlainObject(manifest.permissions) && isPlainObject(manifest.permissions.props) ? manifest.permissions.props : {};
  const defaults = DEFAULT_MANIFEST.rendering;
  const writes = (role: 'host' | 'guest') => (Array.isArray(permissions[role]) ? grants(permissions[role] as Access[], 'write') : DEFAULT_MANIFEST.propsWriters[role]);
  return {
    name: text(root.name) ?? text(manifest.name),
    version: text(root.version) ?? text(manifest.version),
    title: text(manifest.title),
    props: readProps(manifest.props),
    rendering: {
      lazyLoad: typeof rendering.lazyLoad === 'boolean' ? rendering.lazyLoad : defaults.lazyLoad,
      margin: count(viewport.margin, defaults.margin),
      keepAlive: typeof rendering.keepAlive === 'boolean' ? rendering.keepAlive : defaults.keepAlive,
      keepAliveTimeout: count(rendering.keepAliveTimeout, defaults.keepAliveTimeout),
    },
    propsWriters: { host: writes('host'), guest: writes('guest') },
  };
}

function readProps(value: unknown): Record<string, PropSpec> {
  if (!isPlainObject(value)) return {};
  const props: Record<string, PropSpec> = {};
  for (const [name, spec] of Object.entries(value)) {
    if (!isPlainObject(spec) || typeof spec.type !== 'string' || !('default' in spec)) continue;
    const ui = isPlainObject(spec.ui) ? spec.ui : {};
    props[name] = {
      // The server validated the manifest: its types are ValueSpec's.
      type: spec.type as ValueSpec['type'],
      default: spec.default as JsonValue,
      ...(Array.isArray(spec.enum) ? { enum: spec.enum.filter((item): item is string | number => typeof item === 'string' || typeof item === 'number') } : {}),
      ...(typeof spec.minimum === 'number' ? { minimum: spec.minimum } : {}),
      ...(typeof spec.maximum === 'number' ? { maximum: spec.maximum } : {}),
      ...(isPlainObject(spec.items) ? { items: spec.items as unknown as ValueSpec } : {}),
      ...(typeof ui.label === 'string' ? { label: ui.label } : {}),
    };
  }
  return props;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function count(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
