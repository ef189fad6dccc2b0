import { describe, expect, it } from 'vitest';
import { periodKey, periodResetAt } from './periods.js';

describe('quota periods (UTC)', () => {
  it('counts 23:59:59.9 and 00:00:00.1 UTC in different days', () => {
    const before = new Date('2026-11-23T23:59:59.900Z');
    const after = new Date('2026-11-24T00:00:00.100Z');
    expect(periodKey('daily', before)).toBe('2026-11-23');
    expect(periodKey('daily', after)).toBe('2026-11-24');
    expect(periodResetAt('daily', before).toISOString()).toBe('2026-11-24T00:00:00.000Z');
  });

  it('rolls months over at year ends and leap days', () => {
    expect(periodKey('monthly', new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
    expect(periodKey('monthly', new Date('2027-01-01T00:00:00.000Z'))).toBe('2027-01');
    expect(periodResetAt('monthly', new Date('2026-12-15T10:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(periodResetAt('daily', new Date('2028-02-28T12:00:00Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(periodResetAt('daily', new Date('2027-02-28T12:00:00Z')).toISOString()).toBe('2027-03-01T00:00:00.000Z');
    expect(periodResetAt('monthly', new Date('2028-02-29T12:00:00Z')).toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });
});
