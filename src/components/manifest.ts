import { Ajv, type ErrorObject, type SchemaObject } from 'ajv';
import secureJson from 'secure-json-parse';
import type { FieldError } from '../errors.js';
import { fieldOf, messageOf } from '../util/ajvErrors.js';
import { findJsonViolation, type JsonLimits } from '../util/jsonBounds.js';
import { lazy } from '../util/lazy.js';
import { FORMATS, MANIFEST_SCHEMA } from './manifestSchema.js';
import { valueProblem } from './manifestRules.js';
import type { Duration, Manifest, ManifestResult, PropSpec, StorageKeySpec, ValueSpec } from './manifestTypes.js';

export type * from './manifestTypes.js';
export { isPackagePath } from './manifestSchema.js';

/** Largest manifest.json read, in bytes. */
export const MAX_MANIFEST_BYTES = 256 * 1024;
/** Most problems reported for one manifest; the rest are counted in a last detail. */
const MAX_DETAILS = 100;
/**
 * Walked before the schema: refuses text no database stores (NUL, lone surrogates) anywhere,
 * including unknown sections the schema never looks into, and nesting no reader should face.
 */
const MANIFEST_JSON_LIMITS: JsonLimits = { maxDepth: 32, maxStringLength: 100_000, maxKeys: 1_000, maxArrayItems: 1_000, maxBytes: Infinity };
/** Longest debug-log retention a component may ask for. */
const MAX_RETENTION_MS = 30 * 24 * 3_600_000;
const FORBIDDEN_KEY_MESSAGE = 'Object contains forbidden prototype property';


/** One instance, one fixed schema, compiled once, by the first manifest read. */
const manifestValidator = lazy(() => {
  const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: true, allowUnionTypes: true, ownProperties: true, coerceTypes: false, $data: false });
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.check });
  return ajv.compile(MANIFEST_SCHEMA);
});

/** Parses manifest.json's bytes (UTF-8, BOM tolerated) and validates it; defaults applied. */
export function parseManifest(bytes: Buffer): ManifestResult {
  if (bytes.length > MAX_MANIFEST_BYTES) return failed([{ field: 'manifest.json', message: `is ${bytes.length} bytes; at most ${MAX_MANIFEST_BYTES} are allowed` }]);
  const read = readJson(bytes);
  if (!read.ok) return read;
  const violation = findJsonViolation(read.value, MANIFEST_JSON_LIMITS);
  if (violation) return failed([{ field: manifestField(violation.field), message: violation.message }]);
  const givenDimensions = keysOf(isRecord(read.value) ? read.value.dimensions : undefined);
  const validateManifest = manifestValidator();
  if (!validateManifest(read.value)) return failed((validateManifest.errors ?? []).filter((error) => error.keyword !== 'propertyNames').map(ajvDetail));
  const manifest = read.value as Manifest;
  completeDefaults(manifest, givenDimensions);
  const problems = crossFieldProblems(manifest);
  return problems.length > 0 ? failed(problems) : { ok: true, manifest };
}

/**
 * JSON schema of an external-component object's `data.props`, from the manifest's `props`:
 * each prop's type, enum, bounds and items, with its default (so ajv's `useDefaults` fills
 * missing props). Props the manifest does not declare are left alone: an object may carry
 * props of another version of the component, and the object's data bounds cap them anyway.
 */
export function propsSchema(manifest: Manifest): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  for (const [name, spec] of Object.entries(manifest.props)) properties[name] = { ...valueSchema(spec), default: structuredClone(spec.default) };
  return { type: 'object', properties };
}

function valueSchema(spec: ValueSpec): SchemaObject {
  return {
    type: spec.type,
    ...(spec.enum ? { enum: [...spec.enum] } : {}),
    ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}),
    ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}),
    ...(spec.items ? { items: valueSchema(spec.items) } : {}),
  };
}

type Read = { ok: true; value: unknown } | { ok: false; details: FieldError[] };

function readJson(bytes: Buffer): Read {
  let text: string;
  try {
    // Strips a leading BOM; `fatal` refuses bytes that are not UTF-8 rather than guessing.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return failed([{ field: 'manifest.json', message: 'is not valid UTF-8' }]);
  }
  try {
    return { ok: true, value: secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (reason === FORBIDDEN_KEY_MESSAGE) return failed([{ field: 'manifest.json', message: 'must not contain `__proto__` or `constructor.prototype` keys' }]);
    return failed([{ field: 'manifest.json', message: `is not valid JSON: ${reason}` }]);
  }
}

function ajvDetail(error: ErrorObject): FieldError {
  let field = fieldOf(error);
  let message = messageOf(error);
  if (error.keyword === 'format') message = FORMATS[String(error.params.format)]?.message ?? message;
  if (error.propertyName !== undefined) {
    field = field === '(body)' ? error.propertyName : `${field}.${error.propertyName}`;
    message = `is not an allowed key: it ${message}`;
  }
  return { field: manifestField(field), message };
}

function manifestField(field: string): string {
  return field === '(body)' ? 'manifest.json' : `manifest.${field}`;
}

/** Duplicates dropped, at most MAX_DETAILS kept and the rest counted. */
function failed(problems: FieldError[]): { ok: false; details: FieldError[] } {
  const seen = new Set<string>();
  const details: FieldError[] = [];
  for (const problem of problems) {
    const key = `${problem.field}\u0000${problem.message}`;
    if (!seen.has(key)) details.push(problem);
    seen.add(key);
  }
  if (details.length <= MAX_DETAILS) return { ok: false, details };
  return { ok: false, details: [...details.slice(0, MAX_DETAILS), { field: 'manifest.json', message: `has ${details.length - MAX_DETAILS} more problems` }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keysOf(value: unknown): Set<string> {
  return new Set(isRecord(value) ? Object.keys(value) : []);
}

/** Defaults that depend on other fields, which a schema's constant defaults cannot express. */
function completeDefaults(manifest: Manifest, givenDimensions: Set<string>): void {
  manifest.entry = manifest.entry.normalize('NFC');
  if (manifest.settings.entry !== undefined) manifest.settings.entry = manifest.settings.entry.normalize('NFC');
  fitDefaultSizes(manifest.dimensions, givenDimensions);
  for (const key of Object.keys(manifest.storage.schema)) {
    if (!Object.hasOwn(manifest.storage.visibility, key)) manifest.storage.visibility[key] = 'shared';
  }
  manifest.i18n.supportedLocales ??= [manifest.i18n.defaultLocale];
}

const AXES = [
  { size: 'width', min: 'minWidth', max: 'maxWidth' },
  { size: 'height', min: 'minHeight', max: 'maxHeight' },
] as const;

/**
 * Sizes left to their defaults give way to the sizes given: `maxWidth: 250` alone makes the
 * width 250 rather than refusing the default 300, and `width: 120` alone lowers minWidth to 120.
 */
function fitDefaultSizes(dimensions: Manifest['dimensions'], given: Set<string>): void {
  for (const { size, min, max } of AXES) {
    if (!given.has(size)) dimensions[size] = Math.min(Math.max(dimensions[size], given.has(min) ? dimensions[min] : 0), dimensions[max] ?? Infinity);
    if (!given.has(min)) dimensions[min] = Math.min(dimensions[min], dimensions[size]);
  }
}

function crossFieldProblems(manifest: Manifest): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, message: string) => problems.push({ field: `manifest.${field}`, message });
  const { dimensions } = manifest;
  for (const { size, min, max } of AXES) {
    if (dimensions[min] > dimensions[size]) add(`dimensions.${min}`, `must not be greater than ${size} (${dimensions[size]})`);
    const upper = dimensions[max];
    if (upper !== undefined && upper < Math.max(dimensions[size], dimensions[min])) add(`dimensions.${max}`, `must not be less than ${size} and ${min}`);
  }
  for (const [name, spec] of Object.entries(manifest.props)) problems.push(...specProblems(spec, `manifest.props.${name}`));
  for (const [key, spec] of Object.entries(manifest.storage.schema)) problems.push(...specProblems(spec, `manifest.storage.schema.${key}`));
  for (const key of Object.keys(manifest.storage.visibility)) {
    if (!Object.hasOwn(manifest.storage.schema, key)) add(`storage.visibility.${key}`, 'names no key of storage.schema');
  }
  if (manifest.settings.mode === 'custom' && manifest.settings.entry === undefined) add('settings.entry', 'is required when settings.mode is custom');
  const endpoints = new Set(manifest.backend.endpoints.map((endpoint) => endpoint.path));
  for (const role of ['host', 'guest'] as const) {
    manifest.permissions.backend[role].forEach((grant, index) => {
      if (grant !== '*' && !endpoints.has(grant)) add(`permissions.backend.${role}.${index}`, 'must be * or the path of one of backend.endpoints');
    });
  }
  const { i18n, runtimeAssets, debug } = manifest;
  if (!i18n.supportedLocales.includes(i18n.defaultLocale)) add('i18n.supportedLocales', `must include defaultLocale (${i18n.defaultLocale})`);
  if (runtimeAssets.maxFileSize > runtimeAssets.maxTotalStorage) add('runtimeAssets.maxFileSize', 'must not be greater than maxTotalStorage');
  if (durationMs(debug.retention) > MAX_RETENTION_MS) add('debug.retention', 'must be at most 30d');
  return problems;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration the schema's pattern already accepted (`24h`). */
function durationMs(duration: Duration): number {
  return Number(duration.slice(0, -1)) * (UNIT_MS[duration.slice(-1)] ?? 0);
}

/**
 * Keywords that do not fit the value's type (an enum on a boolean, bounds on a string, items
 * on an object), then the default checked against those keywords, so no prop starts out invalid.
 */
function specProblems(spec: PropSpec | StorageKeySpec, field: string): FieldError[] {
  const problems: FieldError[] = [];
  let path = field;
  for (let current: ValueSpec | undefined = spec; current; current = current.items, path += '.items') {
    const { type } = current;
    if (current.enum && type !== 'string' && type !== 'number') problems.push({ field: `${path}.enum`, message: 'applies only to string and number values' });
    else if (current.enum?.some((value) => typeof value !== type)) problems.push({ field: `${path}.enum`, message: `must hold only ${type} values` });
    for (const bound of ['minimum', 'maximum'] as const) {
      if (current[bound] !== undefined && type !== 'number') problems.push({ field: `${path}.${bound}`, message: 'applies only to number values' });
    }
    if (current.minimum !== undefined && current.maximum !== undefined && current.minimum > current.maximum) {
      problems.push({ field: `${path}.minimum`, message: 'must not be greater than maximum' });
    }
    if (current.items && type !== 'array') problems.push({ field: `${path}.items`, message: 'applies only to array values' });
  }
  const maxItems = 'maxItems' in spec ? spec.maxItems : undefined;
  if (maxItems !== undefined && spec.type !== 'array') problems.push({ field: `${field}.maxItems`, message: 'applies only to array values' });
  if (problems.length > 0 || spec.default === undefined) return problems;
  const problem = valueProblem(spec.default, spec, `${field}.default`);
  if (problem) return [problem];
  if (maxItems !== undefined && Array.isArray(spec.default) && spec.default.length > maxItems) {
    return [{ field: `${field}.default`, message: `must NOT have more than ${maxItems} items` }];
  }
  return [];
}
