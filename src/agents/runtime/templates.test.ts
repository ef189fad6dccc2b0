import { describe, expect, it } from 'vitest';
import { fillTemplates } from './templates.js';

describe('templates', () => {
  const scope = { participant: { user_id: 'ada' }, idleSeconds: 130, object: { data: { text: 'x'.repeat(50_000) } } };

  it('fills placeholders from the event and leaves other strings alone', () => {
    const filled = fillTemplates({ message: '{{participant.user_id}} idle for {{ idleSeconds }} s', level: 'info', n: 3 }, scope);
    expect(filled).toEqual({ message: 'ada idle for 130 s', level: 'info', n: 3 });
  });

  it('fills unknown paths, prototype keys and other roots as empty text', () => {
    const filled = fillTemplates({ a: '[{{object.missing}}]', b: '[{{object.__proto__}}]', c: '[{{process.env}}]' }, scope);
    expect(filled).toEqual({ a: '[]', b: '[]', c: '[]' });
  });

  it('bounds the work and the result whatever the string holds', () => {
    // Unbounded, this builds 10,000 copies of a 50 kB note (gigabytes) before cutting it.
    const filled = fillTemplates({ text: '{{object}}'.repeat(10_000) }, scope);
    expect((filled.text as string).length).toBe(2_000);
  });
});
