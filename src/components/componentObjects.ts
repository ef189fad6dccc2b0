import * as Y from 'yjs';
import type { FieldError } from '../errors.js';
import { webhookUrlProblem } from '../webhooks/egress.js';
import type { ComponentManifests, ResolvedComponent } from './componentManifests.js';
import type { Manifest } from './manifest.js';
import { grants } from './manifestRules.js';
import { isSemver } from './manifestSchema.js';
import { COMPONENT_NAME, type RegistryReference } from './registryPaths.js';

/** The built-in object type that runs a component of the registry on a board (docs/components.md). */
export const EXTERNAL_COMPONENT = 'external-component';

/** Who makes a write: the role decides whether a component's props may change (`permissions.props`). */
export type WriterRole = 'host' | 'guest';

/** A check of one object as it stands after a write, against what it was before (null: it is new). */
export type ComponentObjectCheck = (object: unknown, previous: unknown) => FieldError[];

/** `<name>@<version>` of a registry URL as it appears in the bytes of a Yjs update (strings are UTF-8 text there). */
const REFERENCE_IN_BYTES = new RegExp(`components/files/(${COMPONENT_NAME})@([0-9A-Za-z.+-]{1,64})`, 'g');
const TYPE_BYTES = Buffer.from(EXTERNAL_COMPONENT, 'utf8');
/** What every match of REFERENCE_IN_BYTES contains: most updates do not, and skip the regex. */
const REFERENCE_MARKER_BYTES = Buffer.from('components/files/', 'utf8');
/** How far a size may stray from the manifest's aspect ratio (rounding to whole pixels). */
const ASPECT_TOLERANCE = 0.02;
/** Longest `data.componentUrl`: browsers and CDNs handle URLs up to about this; longer is no address anyone serves. */
const MAX_COMPONENT_URL = 2_048;

interface ComponentFields {
  type?: unknown;
  data?: { componentUrl?: unknown; props?: unknown } | null;
  width?: unknown;
  height?: unknown;
}

/**
 * The rules of `external-component` objects, for every writer: `data.componentUrl` names a
 * version of this registry (not a deleted one, unless the object already ran it) or a component
 * hosted elsewhere that the egress rules of webhooks let through. When the version is published,
 * `data.props` matches the manifest's `props` (defaults filled in over REST), the size lies
 * within the manifest's `dimensions`, and only a role the manifest lets write props changes
 * them (or the component the object runs); a version not published has no manifest to check.
 */
export class ComponentObjectRules {
  constructor(
    private readonly manifests: ComponentManifests,
    /** Whether a component hosted elsewhere may sit on a private address or plain http (WEBHOOK_ALLOW_PRIVATE). */
    private readonly allowPrivate: () => boolean,
  ) {}

  /**
   * REST and agents: problems of objects about to be written, filling in each component's
   * default props and size (the objects are changed in place). `previous(index)` is the
   * object as it was, for an edit.
   */
  async problems(objects: readonly unknown[], role: WriterRole, fieldOf: (index: number) => string, previous: (index: number) => unknown = () => null): Promise<FieldError[]> {
    const involved = objects.flatMap((object, index) => [object, previous(index)]).filter(isComponentObject);
    if (involved.length === 0) return [];
    const resolved = await this.load(involved.flatMap((object) => this.referenceKeys(object)));
    return objects.flatMap((object, index) => problemsOf(object, previous(index), { role, resolved, manifests: this.manifests, prefix: fieldOf(index), fill: true, allowPrivate: this.allowPrivate() }));
  }

  /**
   * Sockets: a synchronous check with every component these updates, or the objects they
   * touch (`current`, as they are now), may involve loaded; null when none can be.
   */
  async checkerFor(updates: Uint8Array[], current: readonly unknown[], role: WriterRole): Promise<ComponentObjectCheck | null> {
    const keys = new Set(current.filter(isComponentObject).flatMap((object) => this.referenceKeys(object)));
    let mentioned = keys.size > 0;
    for (const update of updates) {
      const text = Buffer.from(update.buffer, update.byteOffset, update.byteLength);
      if (text.includes(TYPE_BYTES)) mentioned = true;
      if (!text.includes(REFERENCE_MARKER_BYTES)) continue;
      for (const match of text.toString('latin1').matchAll(REFERENCE_IN_BYTES)) keys.add(`${match[1]}@${match[2]}`);
    }
    if (!mentioned && keys.size === 0) return null;
    const resolved = await this.load([...keys]);
    const context = { role, resolved, manifests: this.manifests, prefix: '', fill: false, allowPrivate: this.allowPrivate() };
    return (object, previous) => problemsOf(object, previous, context);
  }

  private referenceKeys(object: unknown): string[] {
    const url = fieldsOf(object).data?.componentUrl;
    const reference = typeof url === 'string' ? this.manifests.referenceOf(url) : null;
    return reference ? [`${reference.name}@${reference.version}`] : [];
  }

  private async load(keys: string[]): Promise<Map<string, ResolvedComponent | null>> {
    const unique = [...new Set(keys)].slice(0, 100);
    const found = await Promise.all(unique.map((key) => this.manifests.resolveReference(splitKey(key))));
    return new Map(unique.map((key, index) => [key, found[index] ?? null]));
  }
}

interface CheckContext {
  role: WriterRole;
  resolved: Map<string, ResolvedComponent | null>;
  manifests: ComponentManifests;
  prefix: string;
  /** Fill in default props and size (REST), rather than only check (sockets: the object is a copy). */
  fill: boolean;
  /** Private and plain-http URLs allowed for components hosted elsewhere (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

function problemsOf(object: unknown, previous: unknown, context: CheckContext): FieldError[] {
  const fields = fieldsOf(object);
  if (fields.type !== EXTERNAL_COMPONENT) return [];
  const field = (name: string) => (context.prefix ? `${context.prefix}.${name}` : name);
  const data = fields.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [{ field: field('data'), message: 'must be an object with componentUrl and props' }];
  const url = data.componentUrl;
  if (typeof url !== 'string') return [{ field: field('data.componentUrl'), message: "is required: the URL of a component version's file" }];
  if (url.length > MAX_COMPONENT_URL) return [{ field: field('data.componentUrl'), message: `is longer than ${MAX_COMPONENT_URL} characters` }];
  const reference = context.manifests.referenceOf(url);
  if (!reference) return foreignProblems(url, data.props, context, field);
  const component = context.resolved.get(`${reference.name}@${reference.version}`);
  if (component === undefined) return [{ field: field('data.componentUrl'), message: 'could not be checked' }];
  if (component === null) return unpublishedProblems(reference, data.props, field);
  const before = isComponentObject(previous) ? fieldsOf(previous) : null;
  const sameComponent = before?.data?.componentUrl === url;
  // An object already running a version its author deleted stays where it is, shown as an error.
  if (component.deleted) return sameComponent ? [] : [{ field: field('data.componentUrl'), message: `names ${component.name}@${component.version}, which was deleted` }];
  // What a write leaves as it was is not checked again: an object placed before its version was
  // published may hold props or a size its manifest refuses, and must still move
  // (docs/decisions/components/keep-unpublished-components-and-validate-later.md).
  const propsKept = sameComponent && sameJson(before?.data?.props, data.props);
  const sizeKept = before !== null && before.width !== undefined && before.width === fields.width && before.height === fields.height;
  const problems = propsKept ? [] : propsProblems(data, before, sameComponent, component, context, field);
  return sizeKept ? problems : [...problems, ...sizeProblems(fields, object, component.manifest, context, field)];
}

/** Props against the manifest (defaults filled in over REST), and whether the writer's role may change them. */
function propsProblems(data: NonNullable<ComponentFields['data']>, before: ComponentFields | null, sameComponent: boolean, component: ResolvedComponent, context: CheckContext, field: (name: string) => string): FieldError[] {
  if (data.props === undefined && context.fill) data.props = {};
  const props = data.props === undefined ? {} : data.props;
  const problems = component.propsProblems(props, field('data.props'));
  if (before && !grants(component.manifest.permissions.props[context.role], 'write')) {
    const previousProps = structuredClone(before.data?.props ?? {});
    component.propsProblems(previousProps, '');
    if (!sameComponent) problems.push({ field: field('data.componentUrl'), message: `may be changed only by a role the component lets write props (${context.role} may not)` });
    else if (!sameJson(previousProps, props)) problems.push({ field: field('data.props'), message: `may be changed only by a role the component lets write them (${context.role} may not)` });
  }
  return problems;
}

/**
 * A version of this registry that is not published (yet, or ever): the object is kept as it is
 * written, and the page shows it as unavailable. Its version must be one a publish could give
 * (a semantic version, or `latest`): from the moment it is published, writes are checked
 * against its manifest.
 */
function unpublishedProblems(reference: RegistryReference, props: unknown, field: (name: string) => string): FieldError[] {
  if (reference.version !== 'latest' && !isSemver(reference.version)) {
    return [{ field: field('data.componentUrl'), message: `names ${reference.name}@${reference.version}: the version must be a semantic version (MAJOR.MINOR.PATCH) or latest` }];
  }
  return propsObjectProblems(props, field);
}

/**
 * A component hosted elsewhere (an integrator's own CDN): no manifest to check against, so
 * its URL passes the egress rules of webhooks and its props need only be an object. The
 * browser client frames only this registry's components
 * (docs/decisions/components/frame-only-registry-components-in-the-client.md).
 */
function foreignProblems(url: string, props: unknown, context: CheckContext, field: (name: string) => string): FieldError[] {
  const problem = webhookUrlProblem(url, context.allowPrivate);
  if (problem) return [{ field: field('data.componentUrl'), message: `${problem} (a component of this registry: …/components/files/<name>@<version>/<file>)` }];
  return propsObjectProblems(props, field);
}

function propsObjectProblems(props: unknown, field: (name: string) => string): FieldError[] {
  if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props))) return [{ field: field('data.props'), message: 'must be object' }];
  return [];
}

/** The size against the manifest's `dimensions`; over REST a missing size becomes the manifest's. */
function sizeProblems(fields: ComponentFields, object: unknown, manifest: Manifest, context: CheckContext, field: (name: string) => string): FieldError[] {
  const { dimensions } = manifest;
  if (context.fill && !(object instanceof Y.Map) && typeof object === 'object' && object !== null) {
    const target = object as ComponentFields;
    target.width ??= dimensions.width;
    target.height ??= dimensions.height;
    fields = target;
  }
  const problems: FieldError[] = [];
  const check = (name: 'width' | 'height', value: unknown, fixed: number, min: number, max: number | undefined) => {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value)) problems.push({ field: field(name), message: 'must be a number' });
    else if (!dimensions.resizable && value !== fixed) problems.push({ field: field(name), message: `must be ${fixed}: the component is not resizable` });
    else if (value < min) problems.push({ field: field(name), message: `must be >= ${min} (the component's minimum)` });
    else if (max !== undefined && value > max) problems.push({ field: field(name), message: `must be <= ${max} (the component's maximum)` });
  };
  check('width', fields.width, dimensions.width, dimensions.minWidth, dimensions.maxWidth);
  check('height', fields.height, dimensions.height, dimensions.minHeight, dimensions.maxHeight);
  const ratio = aspectRatio(dimensions.aspectRatio);
  if (problems.length === 0 && ratio !== null && typeof fields.width === 'number' && typeof fields.height === 'number' && fields.height > 0) {
    if (Math.abs(fields.width / fields.height - ratio) / ratio > ASPECT_TOLERANCE) {
      problems.push({ field: field('width'), message: `must keep the component's aspect ratio ${dimensions.aspectRatio} with height` });
    }
  }
  return problems;
}

function aspectRatio(value: Manifest['dimensions']['aspectRatio']): number | null {
  if (!value) return null;
  const [width, height] = value.split(':').map(Number) as [number, number];
  return width / height;
}

/** Reads the type alone: the socket write check asks this of every object an update touches. */
function isComponentObject(object: unknown): boolean {
  if (object instanceof Y.Map) return object.get('type') === EXTERNAL_COMPONENT;
  return typeof object === 'object' && object !== null && (object as { type?: unknown }).type === EXTERNAL_COMPONENT;
}

/** An object's fields, whether it is a plain value or a Y.Map (its nested values read as plain JSON). */
function fieldsOf(object: unknown): ComponentFields {
  if (object instanceof Y.Map) return object.toJSON();
  return typeof object === 'object' && object !== null ? object : {};
}

/** Whether two JSON values are the same (props as a document or a request holds them). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function splitKey(key: string): { name: string; version: string } {
  const at = key.indexOf('@');
  return { name: key.slice(0, at), version: key.slice(at + 1) };
}
