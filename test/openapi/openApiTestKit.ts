import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { FORMATS } from '../../src/components/manifestSchema.js';
import { openApiDocument } from '../../src/http/openapi/openApiDocument.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The document as the service builds it, read as plain JSON (what a client sees). */
export type Document = Record<string, any>;
export const loadDocument = (): Document => JSON.parse(JSON.stringify(openApiDocument())) as Document;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of a document, keyed `METHOD /path`. */
export function operationsOf(document: Document): Map<string, Record<string, any>> {
  const operations = new Map<string, Record<string, any>>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const method of HTTP_METHODS) if (item[method]) operations.set(`${method.toUpperCase()} ${path}`, item[method]);
  }
  return operations;
}

/** The value a local reference (`#/a/b`) points at, or undefined. */
export function resolvePointer(document: Document, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** An object (a Response, Parameter…) or the one its `$ref` names. */
export function dereferenced(document: Document, value: Record<string, any>): Record<string, any> {
  return typeof value.$ref === 'string' ? (resolvePointer(document, value.$ref) as Record<string, any>) : value;
}

const BASE = 'https://whiteboard.test/openapi.json';

/** A copy of a schema whose `#/components/schemas/…` references point into the validator's copy of them. */
function anchored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchored);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/') ? `${BASE}#/$defs/${item.slice('#/components/schemas/'.length)}` : anchored(item),
    ]),
  );
}

/**
 * The same schema with every object schema that lists `properties` and says nothing of others
 * closed to them: the document leaves room for new fields, the tests make sure none goes undocumented.
 */
export function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (value === null || typeof value !== 'object') return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, closed(item)]));
  const composed = ['allOf', 'anyOf', 'oneOf', '$ref'].some((keyword) => keyword in copy);
  if (copy.properties && typeof copy.properties === 'object' && !('additionalProperties' in copy) && !composed) copy.additionalProperties = false;
  return copy;
}

/**
 * A strict JSON Schema 2020-12 validator holding the document's component schemas: strict mode
 * refuses any keyword JSON Schema does not define (an ajv-only keyword left in, such as `freeJson`).
 * With `closeObjects`, objects refuse undocumented properties (see {@link closed}).
 */
export function schemaValidator(document: Document, { closeObjects = false } = {}) {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.check });
  const prepare = (schema: unknown) => anchored(closeObjects ? closed(schema) : schema) as Record<string, unknown>;
  ajv.addSchema({ $id: BASE, $defs: prepare(document.components.schemas) });
  const compiled = new Map<unknown, ValidateFunction>();
  return {
    /** Compiles a schema of the document (throws what ajv refuses). */
    compile(schema: unknown): ValidateFunction {
      let validate = compiled.get(schema);
      if (!validate) {
        validate = ajv.compile(typeof schema === 'boolean' ? schema : prepare(schema));
        compiled.set(schema, validate);
      }
      return validate;
    },
    /** The problems of `value` against `schema`, one line each; empty when it is valid. */
    problems(schema: unknown, value: unknown): string[] {
      const validate = this.compile(schema);
      return validate(value) ? [] : (validate.errors ?? []).map(describe);
    },
  };
}

function describe(error: ErrorObject): string {
  return `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`;
}

/**
 * Which response suite (test/openapi/responses*.test.ts) drives the operations of each tag, so
 * routeCoverage.test.ts can check every tag is driven by one.
 */
export const RESPONSE_SUITES: Record<string, readonly string[]> = {
  'responsesBoards.test.ts': ['Boards', 'Objects', 'Participant links', 'Frames and zones'],
  'responsesAgentsComponents.test.ts': ['Agents', 'Components'],
  'responsesAccounts.test.ts': ['Admin', 'Users', 'Organizations', 'Quota', 'Webhooks', 'Object types', 'API description'],
};
