import { describe, expect, it } from 'vitest';
import { AccessTokens } from './accessTokens.js';

describe('AccessTokens', () => {
  const tokens = new AccessTokens('server-secret');
  const board = '6f1c1d7e-0c4b-4a51-9d7e-2b7f8c0a1e11';
  const other = '0a9e6c55-3f0e-4d5f-8a43-1b2c3d4e5f60';

  it('issues distinct 256-bit tokens per role', () => {
    const host = tokens.issue(board, 'nonce', 'host');
    const guest = tokens.issue(board, 'nonce', 'guest');
    expect(host).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(host).not.toBe(guest);
    expect(tokens.roleOf(board, 'nonce', host)).toBe('host');
    expect(tokens.roleOf(board, 'nonce', guest)).toBe('guest');
  });

  it('does not accept a token on another board, under another nonce or another secret', () => {
    const host = tokens.issue(board, 'nonce', 'host');
    expect(tokens.roleOf(other, 'nonce', host)).toBeNull();
    expect(tokens.roleOf(board, 'new-nonce', host)).toBeNull();
    expect(new AccessTokens('another-secret').roleOf(board, 'nonce', host)).toBeNull();
  });

  it('rejects malformed and truncated tokens', () => {
    const host = tokens.issue(board, 'nonce', 'host');
    expect(tokens.roleOf(board, 'nonce', '')).toBeNull();
    expect(tokens.roleOf(board, 'nonce', host.slice(0, -1))).toBeNull();
    expect(tokens.roleOf(board, 'nonce', `${host}x`)).toBeNull();
  });
});
