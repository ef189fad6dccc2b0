import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, QUIZ_SCHEMA } from '../helpers/fixtures.js';
import { type ApiResponse } from '../helpers/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/**
 * Registering object types (POST /object-types, docs/object-types.md): a type's schema is
 * screened and compiled once at registration; anything that
 * could hang or exhaust the validator is refused with 400 naming the problem.
 */

const NOW = new Date('2031-05-04T10:00:00.000Z');
const TYPES = '/api/v1/object-types';

const { server } = serverForSuite({ clock: new ManualClock(NOW) });
let receiver: WebhookReceiver;
let sequence = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
const uniqueName = (base: string) => `${base}-${(sequence += 1)}`;

function register(body: Record<string, unknown>, headers?: Record<string, string>): Promise<ApiResponse> {
  return server.api('POST', '/object-types', body, headers);
}

function registration(typeName: string, schema: unknown) {
  return { typeName, displayName: 'Quiz question', category: 'assessment', schema: schema instanceof RawJson ? '__raw__' : schema };
}

/** JSON text to send as written. */
class RawJson {
  constructor(readonly text: string) {}
}

/** A schema nested `levels` deep through `not`. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string', maxLength: 5 };
  for (let level = 1; level < levels; level += 1) schema = { not: schema };
  return schema;
}

describe('registering an object type', () => {
  it('answers 201 with the stored record, which GET returns too', async () => {
    const typeName = uniqueName('quiz');
    const created = await register(registration(typeName, QUIZ_SCHEMA));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      typeName,
      displayName: 'Quiz question',
      category: 'assessment',
      schema: QUIZ_SCHEMA,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    });

    const read = await server.api('GET', `/object-types/${typeName}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const listed = await server.api('GET', '/object-types');
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(created.body);
  });

  it('refuses a second registration of the same typeName with 409 and keeps the first schema', async () => {
    const typeName = uniqueName('once');
    expect((await register(registration(typeName, QUIZ_SCHEMA))).status).toBe(201);
    const again = await register(registration(typeName, { type: 'object', properties: { other: { type: 'number' } } }));
    expectErrorBody(again, { statusCode: 409, error: 'Conflict', path: TYPES });
    expect((await server.api('GET', `/object-types/${typeName}`)).body.schema).toEqual(QUIZ_SCHEMA);
  });

  it('lets exactly one of two simultaneous registrations of a name through', async () => {
    const typeName = uniqueName('race');
    const answers = await Promise.all([register(registration(typeName, QUIZ_SCHEMA)), register(registration(typeName, QUIZ_SCHEMA))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('answers 401 without an API key', async () => {
    const response = await register(registration(uniqueName('anonymous'), QUIZ_SCHEMA), { 'x-api-key': '' });
    expectErrorBody(response, { statusCode: 401, error: 'Unauthorized', path: TYPES });
  });

  it('validates the body at the edge: missing fields and a bad typeName are 400', async () => {
    expectErrorBody(await register({ displayName: 'x', category: 'y', schema: QUIZ_SCHEMA }), {
      statusCode: 400,
      error: 'Bad Request',
      field: 'typeName',
    });
    expectErrorBody(await register(registration('has spaces', QUIZ_SCHEMA)), { statusCode: 400, error: 'Bad Request', field: 'typeName' });
    expectErrorBody(await register(registration(uniqueName('no-schema'), 'not an object')), { statusCode: 400, error: 'Bad Request', field: 'schema' });
  });

  it('refuses the built-in type name external-component', async () => {
    expectErrorBody(await register(registration('external-component', QUIZ_SCHEMA)), { statusCode: 400, error: 'Bad Request', field: 'typeName' });
  });
});

/** The JSON text of a schema nested `levels` deep (too deep for JSON.stringify). */
function nestedText(levels: number): string {
  return `${'{"not":'.repeat(levels - 1)}{"type":"string","maxLength":5}${'}'.repeat(levels - 1)}`;
}

/** Each dangerous schema (an object, or JSON text sent as written), and the field its 400 must name. */
const DANGEROUS: Array<{ what: string; schema: () => unknown; field: string; message?: RegExp }> = [
  {
    what: 'a catastrophic pattern',
    schema: () => ({ type: 'string', pattern: '^(a|a)*$', maxLength: 10 }),
    field: 'schema.pattern',
    message: /backtrack/,
  },
  {
    what: 'a catastrophic pattern inside a property',
    schema: () => ({ type: 'object', properties: { code: { type: 'string', pattern: '^(\\d+)+$', maxLength: 10 } } }),
    field: 'schema.properties.code.pattern',
  },
  {
    what: 'a polynomial pattern',
    schema: () => ({ type: 'object', properties: { code: { type: 'string', pattern: '^\\d+\\d+x$', maxLength: 10 } } }),
    field: 'schema.properties.code.pattern',
    message: /polynomial/,
  },
  {
    what: 'a catastrophic patternProperties key',
    schema: () => ({
      type: 'object',
      propertyNames: { type: 'string', maxLength: 50 },
      patternProperties: { '^(a|a)*$': { type: 'string', maxLength: 10 } },
    }),
    field: 'schema.patternProperties.^(a|a)*$',
  },
  {
    what: 'patternProperties without a bound on property names',
    schema: () => ({ type: 'object', patternProperties: { '^x-[a-z]+$': { type: 'string', maxLength: 10 } } }),
    field: 'schema.patternProperties',
  },
  {
    what: 'a remote $ref',
    schema: () => ({ type: 'object', properties: { evil: { $ref: `${receiver.url}/schema.json` } } }),
    field: 'schema.properties.evil.$ref',
  },
  {
    what: 'an $id pointing elsewhere',
    schema: () => ({ $id: 'https://example.com/schemas/quiz.json', type: 'object' }),
    field: 'schema.$id',
  },
  {
    what: 'a recursive $ref',
    schema: () => ({ type: 'object', properties: { child: { $ref: '#' } } }),
    field: 'schema.properties.child.$ref',
    message: /recursive/,
  },
  {
    what: 'a $data reference',
    schema: () => ({ type: 'object', properties: { low: { type: 'integer' }, high: { type: 'integer', minimum: { $data: '1/low' } } } }),
    field: 'schema.properties.high.minimum',
    message: /\$data/,
  },
  {
    what: 'an unknown keyword (strict mode)',
    schema: () => ({ type: 'object', properties: { title: { type: 'string', minLenght: 3 } } }),
    field: 'schema',
    message: /minLenght/,
  },
  {
    what: 'a format outside the allowlist',
    schema: () => ({ type: 'object', properties: { ip: { type: 'string', format: 'ipv4', maxLength: 15 } } }),
    field: 'schema.properties.ip.format',
  },
  {
    what: 'a format without maxLength',
    schema: () => ({ type: 'object', properties: { email: { type: 'string', format: 'email' } } }),
    field: 'schema.properties.email.format',
    message: /maxLength/,
  },
  {
    what: 'a pattern with a maxLength above 10000',
    schema: () => ({ type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]+$', maxLength: 20_000 } } }),
    field: 'schema.properties.code.pattern',
    message: /maxLength/,
  },
  {
    what: 'uniqueItems without maxItems',
    schema: () => ({ type: 'object', properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 20 } } } }),
    field: 'schema.properties.tags.uniqueItems',
    message: /maxItems/,
  },
  {
    what: 'a schema nested 40 levels deep',
    schema: () => nested(40),
    field: 'schema',
    message: /deeper than 32/,
  },
  {
    // Refused while the body is read, before it is parsed: no field can be named yet.
    what: 'a schema nested 250 000 levels deep (2 MB of JSON)',
    schema: () => new RawJson(nestedText(250_000)),
    field: '(body)',
    message: /deeper than 10000 levels/,
  },
  {
    what: 'a 2 MB schema',
    schema: () => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 5, description: 'x'.repeat(2_300) }])),
    }),
    field: 'schema',
    message: /bytes/,
  },
  {
    what: 'more than 500 subschemas through references',
    schema: () => ({
      type: 'object',
      definitions: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`d${i}`, i === 11 ? { type: 'string', maxLength: 5 } : { allOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] }]),
      ),
      properties: { value: { $ref: '#/definitions/d0' } },
    }),
    field: 'schema',
    message: /500 subschemas/,
  },
  {
    what: 'a __proto__ key',
    schema: () => JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","maxLength":5}}}'),
    field: 'schema.properties.__proto__',
  },
];

describe('a schema that could hang or exhaust the validator', () => {
  for (const { what, schema, field, message } of DANGEROUS) {
    it(`is refused with 400 naming the problem: ${what}`, async () => {
      const typeName = uniqueName('dangerous');
      const value = schema();
      const body = registration(typeName, value);
      const response = await server.api('POST', '/object-types', value instanceof RawJson ? JSON.stringify(body).replace('"__raw__"', value.text) : body);
      expectErrorBody(response, { statusCode: 400, error: 'Bad Request', path: TYPES, field });
      if (message) {
        const detail = (response.body.details as Array<{ field: string; message: string }>).find((item) => item.field === field);
        expect(detail?.message).toMatch(message);
      }
      expect((await server.api('GET', `/object-types/${typeName}`)).status).toBe(404);
    });
  }

  it('never fetches a remote $ref', async () => {
    await register(registration(uniqueName('remote'), { $ref: `${receiver.url}/root.json` }));
    expect(receiver.requests).toEqual([]);
  });

  it('accepts a reasonable schema with local references, formats and bounded patterns', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { slug: { type: 'string', pattern: '^[a-z0-9-]+$', maxLength: 64 } },
      properties: {
        id: { $ref: '#/definitions/slug' },
        contact: { type: 'string', format: 'email', maxLength: 254 },
        due: { type: 'string', format: 'date-time', maxLength: 40 },
        tags: { type: 'array', uniqueItems: true, maxItems: 20, items: { $ref: '#/definitions/slug' } },
        extra: { type: 'object', propertyNames: { type: 'string', maxLength: 40 }, patternProperties: { '^x-[a-z]+$': { type: 'string', maxLength: 100 } } },
      },
    };
    const response = await register(registration(uniqueName('fine'), schema));
    expect(response.status).toBe(201);
    expect(response.body.schema).toEqual(schema);
  });
});

describe('reading object types', () => {
  it('answers 404 for an unknown type', async () => {
    expectErrorBody(await server.api('GET', '/object-types/never-registered'), {
      statusCode: 404,
      error: 'Not Found',
      path: `${TYPES}/never-registered`,
    });
  });

  it("never shows another organization's types, and lets it register the same name", async () => {
    const typeName = uniqueName('private');
    expect((await register(registration(typeName, QUIZ_SCHEMA))).status).toBe(201);
    const other = await server.newOrganization();
    const asOther = { 'x-api-key': other.apiKey };

    expect((await server.api('GET', `/object-types/${typeName}`, undefined, asOther)).status).toBe(404);
    const listed = await server.api('GET', '/object-types', undefined, asOther);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);

    const own = await register(registration(typeName, { type: 'object' }), asOther);
    expect(own.status).toBe(201);
    expect((await server.api('GET', `/object-types/${typeName}`)).body.schema).toEqual(QUIZ_SCHEMA);
    expect((await server.api('GET', `/object-types/${typeName}`, undefined, asOther)).body.schema).toEqual({ type: 'object' });
  });
});
