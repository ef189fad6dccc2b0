import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, QUIZ_SCHEMA } from '../helpers/fixtures.js';

/**
 * An object's `data` is validated against its object type's schema. Objects of a
 * registered type written over REST (POST /boards/<id>/objects, `initial_objects` on
 * POST /boards) with data that fails the schema are refused with 422 naming each failing
 * field, and nothing is stored.
 */

const { server } = serverForSuite();
let boardId: string;
let guestToken: string;

beforeAll(async () => {
  const registered = await server.api('POST', '/object-types', { typeName: 'quiz', displayName: 'Quiz', category: 'assessment', schema: QUIZ_SCHEMA });
  expect(registered.status).toBe(201);
  const board = await server.api('POST', '/boards', { title: 'Quiz board' });
  expect(board.status).toBe(201);
  boardId = board.body.board_uuid;
  guestToken = new URL(board.body.access_links.guest).searchParams.get('token')!;
});
const objectsPath = () => `/boards/${boardId}/objects`;
const position = { x: 10, y: 20 };

async function boardObjects(id = boardId): Promise<Array<Record<string, any>>> {
  const read = await server.api('GET', `/boards/${id}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

function fieldsOf(body: { details: Array<{ field: string }> }): string[] {
  return body.details.map((detail) => detail.field);
}

describe('POST /boards/<id>/objects with a registered type', () => {
  it('stores an object whose data matches the schema (201)', async () => {
    const created = await server.api('POST', objectsPath(), { type: 'quiz', data: { question: 'What is 6 × 7?', points: 5 }, position });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'quiz', data: { question: 'What is 6 × 7?', points: 5 }, position });
    expect((await boardObjects()).map((object) => object.id)).toContain(created.body.id);
  });

  it('refuses data that fails the schema with 422 naming each failing field, and stores nothing', async () => {
    const before = await boardObjects();
    const response = await server.api('POST', objectsPath(), { type: 'quiz', data: { question: '', points: 'many', extra: true }, position });
    expectErrorBody(response, { statusCode: 422, error: 'Unprocessable Entity', path: `/api/v1${objectsPath()}`, field: 'data.points' });
    expect(fieldsOf(response.body).sort()).toEqual(['data.extra', 'data.points', 'data.question']);
    const points = response.body.details.find((detail: { field: string }) => detail.field === 'data.points');
    expect(points.message).toBe('must be integer');
    expect(await boardObjects()).toEqual(before);
  });

  it('names a missing required field', async () => {
    const response = await server.api('POST', objectsPath(), { type: 'quiz', data: { points: 3 }, position });
    expectErrorBody(response, { statusCode: 422, error: 'Unprocessable Entity', field: 'data.question' });
    expect(response.body.details).toContainEqual({ field: 'data.question', message: "must have required property 'question'" });
  });

  it('checks objects written with a guest token the same way', async () => {
    const asGuest = { 'x-api-key': '', authorization: `Bearer ${guestToken}` };
    const refused = await server.api('POST', objectsPath(), { type: 'quiz', data: { question: 'Why?', points: 101 }, position }, asGuest);
    expectErrorBody(refused, { statusCode: 422, error: 'Unprocessable Entity', field: 'data.points' });
    const accepted = await server.api('POST', objectsPath(), { type: 'quiz', data: { question: 'Why?', points: 100 }, position }, asGuest);
    expect(accepted.status).toBe(201);
  });

  it('lists at most 20 details', async () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}`, { type: 'integer' }]));
    expect((await server.api('POST', '/object-types', { typeName: 'wide', displayName: 'Wide', category: 'test', schema: { type: 'object', properties } })).status).toBe(201);
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}`, 'not a number']));
    const response = await server.api('POST', objectsPath(), { type: 'wide', data, position });
    expect(response.status).toBe(422);
    expect(response.body.details).toHaveLength(20);
  });

  it('leaves objects of unregistered types alone', async () => {
    const created = await server.api('POST', objectsPath(), { type: 'sticky', data: { anything: ['goes', 1, null] }, position });
    expect(created.status).toBe(201);
  });

  it("applies only the board organization's types", async () => {
    const other = await server.newOrganization();
    const asOther = { 'x-api-key': other.apiKey };
    const board = await server.api('POST', '/boards', { title: 'Other quiz board' }, asOther);
    const created = await server.api('POST', `/boards/${board.body.board_uuid}/objects`, { type: 'quiz', data: { points: 'many' }, position }, asOther);
    expect(created.status).toBe(201);
  });
});

describe('keys that reach prototypes', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`refuses ${key} anywhere in object data with 422, whatever the type`, async () => {
      const before = await boardObjects();
      const body = `{"type":"sticky","data":{"nested":[{"${key}":{"polluted":1}}]},"position":{"x":1,"y":2}}`;
      const response = await server.api('POST', objectsPath(), body);
      expectErrorBody(response, { statusCode: 422, error: 'Unprocessable Entity', field: `data.nested.0.${key}` });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await boardObjects()).toEqual(before);
    });
  }

  it('refuses __proto__ at the top of the data of a registered type', async () => {
    const body = '{"type":"quiz","data":{"__proto__":{"question":"smuggled"}},"position":{"x":1,"y":2}}';
    const response = await server.api('POST', objectsPath(), body);
    expectErrorBody(response, { statusCode: 422, error: 'Unprocessable Entity', field: 'data.__proto__' });
  });
});

describe('initial_objects on POST /boards', () => {
  it('refuses the board (422) when one initial object fails its schema, naming it by index', async () => {
    const title = `Refused ${Date.now()}`;
    const response = await server.api('POST', '/boards', {
      title,
      initial_objects: [
        { type: 'quiz', data: { question: 'Fine' }, position },
        { type: 'quiz', data: { question: 'Wrong', points: -1 }, position },
      ],
    });
    expectErrorBody(response, { statusCode: 422, error: 'Unprocessable Entity', path: '/api/v1/boards', field: 'initial_objects.1.data.points' });
    const boards = await server.api('GET', '/boards');
    expect(boards.body.map((board: { title: string }) => board.title)).not.toContain(title);
  });

  it('creates the board when every initial object passes', async () => {
    const response = await server.api('POST', '/boards', {
      title: 'Accepted',
      initial_objects: [{ type: 'quiz', data: { question: 'Fine', points: 1 }, position }],
    });
    expect(response.status).toBe(201);
    expect((await boardObjects(response.body.board_uuid)).map((object) => object.data)).toEqual([{ question: 'Fine', points: 1 }]);
  });
});
