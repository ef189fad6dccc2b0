import { expect } from 'vitest';
import type { ApiResponse } from './testServer.js';

/** A timestamp as `Date#toISOString()` writes it: UTC, milliseconds, `Z` (`2031-03-01T09:00:00.000Z`). */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What an error answer must say; see {@link expectErrorBody}. */
export interface ExpectedError {
  /** The HTTP status, which the body's `statusCode` repeats. */
  statusCode: number;
  /** The status name the body's `error` carries, e.g. `'Not Found'`. */
  error: string;
  /**
   * The request path the body's `path` must equal: the URL path the client called,
   * `/api/v1` prefix included, query string left out. When omitted, `path` must only be
   * a string that starts with `/`.
   */
  path?: string;
  /**
   * Marks a validation error and names a field it must report. Then `message` is a
   * non-empty array of strings, one of which starts with `field`, and `details` is an
   * array of `{ field, message }` that names `field`. Without it, the error is not a
   * validation error: `message` is a single string and there is no `details`.
   */
  field?: string;
}

/**
 * Asserts that a response is the API's HTTP error body:
 *
 * - the HTTP status and `statusCode` are `expected.statusCode`, `error` is `expected.error`;
 * - the body has exactly the keys `statusCode`, `message`, `error`, `timestamp`, `path`,
 *   plus `details` for a validation error (`expected.field` given), and nothing else;
 * - `timestamp` is ISO 8601 ({@link ISO_TIMESTAMP}) and round-trips through `Date`;
 * - `path` equals `expected.path` when given;
 * - `message` is a string, or for a validation error a non-empty array of strings one of
 *   which starts with the field's name, and `details` lists `{ field, message }` string
 *   pairs, one of them for `expected.field`.
 */
export function expectErrorBody(response: ApiResponse, expected: ExpectedError): void {
  const { statusCode, error, path, field } = expected;
  expect(response.status).toBe(statusCode);
  const body = response.body as Record<string, unknown>;
  const keys = ['error', 'message', 'path', 'statusCode', 'timestamp'];
  if (field !== undefined) keys.push('details');
  expect(Object.keys(body).sort()).toEqual(keys.sort());
  expect(body).toMatchObject({
    statusCode,
    error,
    timestamp: expect.stringMatching(ISO_TIMESTAMP),
    path: path ?? expect.stringMatching(/^\//),
  });
  expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);

  if (field === undefined) {
    expect(typeof body.message).toBe('string');
    return;
  }
  const { message, details } = body;
  expect(Array.isArray(message)).toBe(true);
  const lines = message as unknown[];
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(typeof line).toBe('string');
  expect(lines.some((line) => (line as string).startsWith(field))).toBe(true);
  expect(Array.isArray(details)).toBe(true);
  const items = details as unknown[];
  for (const item of items) expect(item).toEqual({ field: expect.any(String), message: expect.any(String) });
  expect((items as Array<{ field: string }>).map((d) => d.field)).toContain(field);
}
