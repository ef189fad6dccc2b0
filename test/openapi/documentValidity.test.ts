import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { dereferenced, HTTP_METHODS, loadDocument, operationsOf, resolvePointer, schemaValidator, type Document } from './openApiTestKit.js';

/**
 * The document is valid OpenAPI 3.1: against the specification's own JSON schema when the
 * validator package is installed, and always by the checks below, which that schema leaves out
 * (it takes any Schema Object on trust): every schema is strict JSON Schema 2020-12 with no
 * ajv-only keyword left, every reference resolves, and the path, parameter, operation and
 * security rules of the specification hold.
 */
const document = loadDocument();
const operations = [...operationsOf(document)];

/** Every value of the document that the specification reads as a Schema Object, with where it is. */
function schemaObjects(doc: Document): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = Object.entries(doc.components.schemas as object).map(([name, schema]) => [`#/components/schemas/${name}`, schema]);
  const fromMedia = (where: string, content: Record<string, { schema?: unknown }> | undefined) => {
    for (const [type, media] of Object.entries(content ?? {})) if (media.schema !== undefined) found.push([`${where} ${type}`, media.schema]);
  };
  const fromHeaders = (where: string, headers: Record<string, { schema?: unknown }> | undefined) => {
    for (const [name, header] of Object.entries(headers ?? {})) found.push([`${where} header ${name}`, header.schema]);
  };
  for (const [name, response] of Object.entries(doc.components.responses as Record<string, any>)) {
    fromMedia(`response ${name}`, response.content);
    fromHeaders(`response ${name}`, response.headers);
  }
  for (const [name, parameter] of Object.entries(doc.components.parameters as Record<string, any>)) found.push([`parameter ${name}`, parameter.schema]);
  for (const [key, operation] of operations) {
    for (const parameter of operation.parameters as Array<Record<string, any>>) if (parameter.schema) found.push([`${key} parameter ${parameter.name}`, parameter.schema]);
    fromMedia(`${key} request`, operation.requestBody?.content);
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      fromMedia(`${key} ${status}`, response.content);
      fromHeaders(`${key} ${status}`, response.headers);
    }
  }
  return found;
}

/** Every `$ref` of the document. */
function references(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => references(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else references(item, found);
    }
  }
  return found;
}

/** Names of keys anywhere in the document. */
function keysOf(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => keysOf(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      found.add(key);
      keysOf(item, found);
    }
  }
  return found;
}


describe('the document is valid OpenAPI 3.1', () => {
  it("matches the OpenAPI 3.1 specification's JSON schema", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('declares OpenAPI 3.1 and describes the service', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(document.info.description).toContain('/api/v1/realtime?token=');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
  });

  it('holds only strict JSON Schema 2020-12 schemas', () => {
    const validator = schemaValidator(document);
    const found = schemaObjects(document);
    expect(found.length).toBeGreaterThan(150);
    const refused = found.flatMap(([where, schema]) => {
      try {
        validator.compile(schema);
        return [];
      } catch (error) {
        return [`${where}: ${(error as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  });

  it('keeps no ajv-only keyword', () => {
    expect(keysOf(document).has('freeJson')).toBe(false);
    expect(JSON.stringify(document.components.schemas.ObjectInput)).toContain("Free-form JSON that enters the board's live document, bounded");
  });

  it('resolves every reference inside the document', () => {
    const refs = references(document);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((ref) => resolvePointer(document, ref) === undefined)).toEqual([]);
  });

  it('keeps the rules of paths, parameters and operations', () => {
    const problems: string[] = [];
    const ids = operations.map(([, operation]) => operation.operationId as string);
    problems.push(...ids.filter((id, index) => ids.indexOf(id) !== index).map((id) => `operationId ${id} is used twice`));
    const tags = new Set((document.tags as Array<{ name: string }>).map((tag) => tag.name));
    for (const [key, operation] of operations) {
      const path = key.split(' ')[1]!;
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name!).sort();
      const parameters = (operation.parameters as Array<Record<string, any>>).map((parameter) => dereferenced(document, parameter));
      const inPath = parameters.filter((parameter) => parameter.in === 'path');
      if (JSON.stringify(inPath.map((parameter) => parameter.name).sort()) !== JSON.stringify(templated)) problems.push(`${key}: path parameters differ from the template`);
      if (inPath.some((parameter) => parameter.required !== true)) problems.push(`${key}: a path parameter is not required`);
      if (!(operation.tags as string[]).every((tag) => tags.has(tag))) problems.push(`${key}: undeclared tag`);
      const statuses = Object.keys(operation.responses as object);
      if (!statuses.every((status) => /^[1-5](\d\d|XX)$/.test(status) || status === 'default')) problems.push(`${key}: a response key is not a status`);
      if (!statuses.some((status) => /^[23]/.test(status) || status === '405')) problems.push(`${key}: no answer besides errors`);
      for (const requirement of operation.security as Array<Record<string, unknown>>) {
        for (const scheme of Object.keys(requirement)) if (!document.components.securitySchemes[scheme]) problems.push(`${key}: unknown security scheme ${scheme}`);
      }
    }
    for (const path of Object.keys(document.paths as object)) if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
    for (const item of Object.values(document.paths as Record<string, object>)) {
      for (const key of Object.keys(item)) if (!(HTTP_METHODS as readonly string[]).includes(key)) problems.push(`unexpected path item field ${key}`);
    }
    expect(problems).toEqual([]);
  });

  it('answers every error in the API error body, its status fixed', () => {
    for (const [name, response] of Object.entries(document.components.responses as Record<string, any>)) {
      const schema = response.content['application/json'].schema;
      expect(schema.required, name).toEqual(expect.arrayContaining(['statusCode', 'message', 'error', 'timestamp', 'path']));
      expect(schema.properties.statusCode.const, name).toEqual(expect.any(Number));
    }
  });
});
