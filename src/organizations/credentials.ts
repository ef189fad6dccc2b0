import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new API key: a visible prefix (so leaked keys are recognisable) and 256 random bits. */
export function generateApiKey(): string {
  return `wb_${randomBytes(32).toString('base64url')}`;
}

/** Keys are stored only as this hash; a lookup by hash needs no constant-time compare. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters of a key, kept to help operators tell keys apart. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 7);
}

/** Compares two secrets in constant time (unequal lengths compare as unequal). */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
