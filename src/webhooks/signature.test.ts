import { describe, expect, it } from 'vitest';
import { matchesPattern, isValidPattern } from './eventPatterns.js';
import { signWebhookBody, verifyWebhookSignature } from './signature.js';

describe('webhook signatures', () => {
  // The published test vector (docs/webhooks.md): anyone can check their receiver against it.
  const secret = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
  const body = '{"delivery_id":"00000000-0000-4000-8000-000000000000","event":"board.created","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';

  it('signs with HMAC-SHA256 over the raw body, keyed with the secret as ASCII, in lowercase hex', () => {
    expect(signWebhookBody(body, secret)).toBe('81c6459879265e7e50970518b05f64bf98c2efee5073c1f501c89ff003b00862');
  });

  it('verifies a genuine signature and rejects tampered bodies, other secrets and malformed signatures', () => {
    const signature = signWebhookBody(body, secret);
    expect(verifyWebhookSignature(body, signature, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), signature, secret)).toBe(true);
    expect(verifyWebhookSignature(`${body} `, signature, secret)).toBe(false);
    expect(verifyWebhookSignature(body, signature, secret.replace('0', '1'))).toBe(false);
    expect(verifyWebhookSignature(body, signature.toUpperCase(), secret)).toBe(false);
    expect(verifyWebhookSignature(body, signature.slice(1), secret)).toBe(false);
    expect(verifyWebhookSignature(body, undefined, secret)).toBe(false);
  });
});

describe('event patterns', () => {
  it.each([
    ['*', 'object.deleted', true],
    ['board.*', 'board.created', true],
    ['board.*', 'session.started', false],
    ['*.created', 'object.created', true],
    ['*.created', 'object.updated', false],
    ['participant.left', 'participant.left', true],
  ])('%s matches %s: %s', (pattern, event, expected) => {
    expect(matchesPattern(pattern, event)).toBe(expected);
  });

  it.each(['board.*', 'session.*', 'participant.*', 'object.*', '*.created', '*', 'object.action'])('accepts %s', (pattern) => {
    expect(isValidPattern(pattern)).toBe(true);
  });

  it.each(['boardx.*', 'board.', '**', 'unknown.event', '*.*.*', 'board', '*.exploded', ''])('refuses %s', (pattern) => {
    expect(isValidPattern(pattern)).toBe(false);
  });
});
