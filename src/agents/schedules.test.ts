import fc from 'fast-check';
import { createTask, validate } from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextRunAfter, parseSchedulePattern, SCHEDULE_LIMITS, type SchedulePattern } from './schedules.js';

const at = (iso: string) => new Date(iso);
const noSession = { anchor: at('2026-01-01T00:00:00Z'), sessionStartedAt: null };

function pattern(text: string): SchedulePattern {
  const parsed = parseSchedulePattern(text);
  if ('problem' in parsed) throw new Error(`${text}: ${parsed.problem}`);
  return parsed;
}

function problemOf(text: string): string {
  const parsed = parseSchedulePattern(text);
  if (!('problem' in parsed)) throw new Error(`${text} was accepted`);
  return parsed.problem;
}

function next(text: string, after: string, context: Parameters<typeof nextRunAfter>[2] = noSession): string | null {
  return nextRunAfter(pattern(text), at(after), context)?.toISOString() ?? null;
}

describe('parseSchedulePattern', () => {
  it('reads the interval forms', () => {
    expect(pattern('every:30sec')).toEqual({ kind: 'every', intervalMs: 30_000 });
    expect(pattern('every:5min')).toEqual({ kind: 'every', intervalMs: 300_000 });
    expect(pattern('every:1hour')).toEqual({ kind: 'every', intervalMs: 3_600_000 });
    expect(pattern('every:10sec')).toEqual({ kind: 'every', intervalMs: 10_000 });
    expect(pattern('every:168hour')).toEqual({ kind: 'every', intervalMs: 7 * 86_400_000 });
    expect(pattern('  every:05min ')).toEqual({ kind: 'every', intervalMs: 300_000 });
  });

  it.each(['every:0min', 'every:9sec', 'every:169hour', 'every:10081min', 'every:999999999hour'])('refuses the interval %s', (text) => {
    expect(problemOf(text)).toBe('every: the interval must be between 10 seconds and 7 days');
  });

  const badIntervalForms = ['every:5days', 'every:-5min', 'every:1.5min', 'every:5 min', 'every:min', 'every:5MIN', 'every:'];
  it.each(badIntervalForms)('refuses the form %s', (text) => {
    expect(problemOf(text)).toMatch(/^every: must be every:<n>sec, every:<n>min or every:<n>hour/);
  });

  it('reads UTC times of day with a one- or two-digit hour', () => {
    expect(pattern('at:09:00')).toEqual({ kind: 'at', hour: 9, minute: 0 });
    expect(pattern('at:9:00')).toEqual({ kind: 'at', hour: 9, minute: 0 });
    expect(pattern('at:00:00')).toEqual({ kind: 'at', hour: 0, minute: 0 });
    expect(pattern('at:23:59')).toEqual({ kind: 'at', hour: 23, minute: 59 });
  });

  it.each(['at:24:00', 'at:12:60', 'at:9:5', 'at:123:00', 'at:09:00:00', 'at:', 'at:noon'])('refuses the time of day %s', (text) => {
    expect(problemOf(text)).toBe('at: must be at:HH:MM, a UTC time of day from 00:00 to 23:59');
  });

  it('reads cron expressions that node-cron accepts', () => {
    expect(pattern('cron:0 9 * * 1-5')).toEqual({ kind: 'cron', expression: '0 9 * * 1-5' });
    expect(pattern('cron: */30 * * * * *')).toEqual({ kind: 'cron', expression: '*/30 * * * * *' });
    expect(pattern('cron:@daily')).toEqual({ kind: 'cron', expression: '@daily' });
    expect(pattern('cron:0 0 L * *')).toEqual({ kind: 'cron', expression: '0 0 L * *' });
    expect(pattern('cron:0 0 29 2 *')).toEqual({ kind: 'cron', expression: '0 0 29 2 *' });
    expect(pattern('cron:0 0 * * mon-fri')).toEqual({ kind: 'cron', expression: '0 0 * * mon-fri' });
    expect(pattern('cron:0,30 * * * * *')).toEqual({ kind: 'cron', expression: '0,30 * * * * *' });
  });

  it('refuses bad cron expressions with node-cron\'s reason', () => {
    expect(problemOf('cron:')).toBe('cron: the expression is empty');
    expect(problemOf('cron:foo')).toBe('cron: expected 5 or 6 fields but got 1');
    expect(problemOf('cron:61 * * * *')).toBe('cron: 61 is a invalid expression for minute');
    expect(problemOf('cron:0 0 30 2 *')).toBe('cron: 30 2 is an impossible day of month for the given month');
    expect(problemOf('cron:0 0 * * * * *')).toBe('cron: expected 5 or 6 fields but got 7');
    expect(problemOf('cron:0 0 * * $')).toBe('cron: pattern includes illegal characters');
    expect(problemOf(`cron:${'0 '.repeat(51)}`)).toBe('cron: the expression is longer than 100 characters');
  });

  it('refuses crons that would run less than 10 seconds apart', () => {
    for (const expression of ['* * * * * *', '*/5 * * * * *', '0,5 * * * * *', '0,55 * * * * *']) {
      expect(problemOf(`cron:${expression}`)).toBe('cron: runs must be at least 10 seconds apart');
    }
    expect(pattern('cron:0,10,20,30,40,50 * * * * *').kind).toBe('cron');
  });

  it('refuses huge numbers before node-cron expands ranges', () => {
    const started = performance.now();
    expect(problemOf('cron:1-999999999 * * * *')).toBe('cron: numbers have at most two digits');
    expect(problemOf('cron:0 */100 * * *')).toBe('cron: numbers have at most two digits');
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('reads the elapsed form', () => {
    expect(pattern('00:10:00')).toEqual({ kind: 'elapsed', afterMs: 600_000 });
    expect(pattern('1:30:05')).toEqual({ kind: 'elapsed', afterMs: 5_405_000 });
    expect(pattern('99:59:59')).toEqual({ kind: 'elapsed', afterMs: 359_999_000 });
    expect(problemOf('00:00:00')).toBe('elapsed time must be at least 00:00:01');
    expect(problemOf('00:60:00')).toBe('elapsed time must be HH:MM:SS with minutes and seconds below 60');
    expect(problemOf('00:00:60')).toBe('elapsed time must be HH:MM:SS with minutes and seconds below 60');
  });

  it.each(['', 'daily', '00:10', 'EVERY:5min', 'in:5min', '100:00:00', 'cron'])('refuses the unknown pattern %j', (text) => {
    expect(problemOf(text)).toBe('schedule must be every:<n>sec|min|hour, at:HH:MM, cron:<expression> or HH:MM:SS');
  });

  it('never throws, whatever the text', () => {
    const prefixed = fc.tuple(fc.constantFrom('', 'every:', 'at:', 'cron:', 'cron:0 ', '1:'), fc.string({ maxLength: 40 }));
    const cronish = fc
      .array(fc.constantFrom('*', '/', '-', ',', ' ', '0', '5', '59', '7', 'L', 'W', '#', '?', 'jan', 'mon', '@daily', '@'), {
        maxLength: 20,
      })
      .map((parts) => `cron:${parts.join('')}`);
    fc.assert(
      fc.property(fc.oneof(prefixed.map(([prefix, rest]) => prefix + rest), cronish, fc.string({ unit: 'binary' })), (text) => {
        const parsed = parseSchedulePattern(text);
        expect('problem' in parsed || 'kind' in parsed).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('nextRunAfter: every', () => {
  const context = { anchor: at('2026-03-10T10:00:00Z'), sessionStartedAt: null };

  it('runs at anchor + k·interval, strictly after the given time', () => {
    expect(next('every:5min', '2026-03-10T10:00:00Z', context)).toBe('2026-03-10T10:05:00.000Z');
    expect(next('every:5min', '2026-03-10T10:05:00Z', context)).toBe('2026-03-10T10:10:00.000Z');
    expect(next('every:5min', '2026-03-10T10:07:30Z', context)).toBe('2026-03-10T10:10:00.000Z');
    expect(next('every:5min', '2026-03-10T09:00:00Z', context)).toBe('2026-03-10T10:05:00.000Z');
  });

  it('fires once after a long downtime, not a burst', () => {
    const first = nextRunAfter(pattern('every:30sec'), at('2026-03-13T07:42:10.500Z'), context);
    expect(first?.toISOString()).toBe('2026-03-13T07:42:30.000Z');
    const second = nextRunAfter(pattern('every:30sec'), first as Date, context);
    expect(second?.toISOString()).toBe('2026-03-13T07:43:00.000Z');
  });

  it('crosses day and year ends on the interval grid', () => {
    const anchor = { anchor: at('2026-12-31T23:00:00Z'), sessionStartedAt: null };
    expect(next('every:1hour', '2026-12-31T23:59:59.999Z', anchor)).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('nextRunAfter: at', () => {
  it('runs at the UTC time today or tomorrow', () => {
    expect(next('at:09:00', '2026-03-10T08:59:59.999Z')).toBe('2026-03-10T09:00:00.000Z');
    expect(next('at:09:00', '2026-03-10T09:00:00Z')).toBe('2026-03-11T09:00:00.000Z');
    expect(next('at:23:59', '2026-03-10T23:59:30Z')).toBe('2026-03-11T23:59:00.000Z');
    expect(next('at:00:00', '2026-03-10T23:59:59Z')).toBe('2026-03-11T00:00:00.000Z');
  });

  it('crosses month, year and leap-day boundaries', () => {
    expect(next('at:00:00', '2026-12-31T23:59:00Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('at:9:00', '2028-02-28T10:00:00Z')).toBe('2028-02-29T09:00:00.000Z');
    expect(next('at:9:00', '2027-02-28T10:00:00Z')).toBe('2027-03-01T09:00:00.000Z');
  });
});

describe('nextRunAfter: cron (UTC)', () => {
  it('finds the next matching minute or second', () => {
    expect(next('cron:*/15 * * * *', '2026-03-10T12:34:56Z')).toBe('2026-03-10T12:45:00.000Z');
    expect(next('cron:* * * * *', '2026-03-10T12:34:00Z')).toBe('2026-03-10T12:35:00.000Z');
    expect(next('cron:*/30 * * * * *', '2026-03-10T10:00:15.500Z')).toBe('2026-03-10T10:00:30.000Z');
    expect(next('cron:*/30 * * * * *', '2026-03-10T10:00:30Z')).toBe('2026-03-10T10:01:00.000Z');
    expect(next('cron:*/30 * * * * *', '2026-03-10T10:00:59.999Z')).toBe('2026-03-10T10:01:00.000Z');
    expect(next('cron:59 * * * * *', '2026-03-10T10:00:58.500Z')).toBe('2026-03-10T10:00:59.000Z');
    expect(next('cron:59 59 23 * * *', '2026-03-10T23:59:58Z')).toBe('2026-03-10T23:59:59.000Z');
  });

  it('skips to the next working day, month and year', () => {
    expect(next('cron:0 9 * * 1-5', '2026-03-13T18:00:00Z')).toBe('2026-03-16T09:00:00.000Z'); // Friday → Monday
    expect(next('cron:59 23 * * *', '2026-03-10T23:59:00Z')).toBe('2026-03-11T23:59:00.000Z');
    expect(next('cron:0 0 * * *', '2026-03-10T23:59:59.999Z')).toBe('2026-03-11T00:00:00.000Z');
    expect(next('cron:0 0 1 1 *', '2026-12-31T23:59:59.999Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('cron:0 0 1 jan,jul *', '2026-01-01T00:00:00Z')).toBe('2026-07-01T00:00:00.000Z');
    expect(next('cron:30 6 31 * *', '2026-04-01T00:00:00Z')).toBe('2026-05-31T06:30:00.000Z');
  });

  it('finds leap days, up to the eight-year gap around 2100', () => {
    expect(next('cron:0 0 29 2 *', '2025-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('cron:0 0 29 2 *', '2028-02-29T00:00:00Z')).toBe('2032-02-29T00:00:00.000Z');
    expect(next('cron:0 0 29 2 *', '2096-03-01T00:00:00Z')).toBe('2104-02-29T00:00:00.000Z');
  });

  it('uses node-cron\'s day semantics: both day fields must match, and L, W, # tokens', () => {
    expect(next('cron:0 0 13 * 5', '2026-01-01T00:00:00Z')).toBe('2026-02-13T00:00:00.000Z'); // Friday the 13th
    expect(next('cron:0 0 L * *', '2027-02-01T00:00:00Z')).toBe('2027-02-28T00:00:00.000Z');
    expect(next('cron:0 0 L-2 * *', '2028-02-01T00:00:00Z')).toBe('2028-02-27T00:00:00.000Z');
    expect(next('cron:0 0 15W * *', '2026-08-01T00:00:00Z')).toBe('2026-08-14T00:00:00.000Z'); // the 15th is a Saturday
    expect(next('cron:0 0 * * 5L', '2026-03-01T00:00:00Z')).toBe('2026-03-27T00:00:00.000Z');
    expect(next('cron:0 0 * * 1#2', '2026-03-01T00:00:00Z')).toBe('2026-03-09T00:00:00.000Z');
  });

  it('returns null for an expression that never matches', () => {
    expect(next('cron:0 0 1 * 1#5', '2026-03-01T00:00:00Z')).toBeNull(); // the 1st is never a fifth Monday
  });
});

describe('nextRunAfter: elapsed', () => {
  const start = at('2026-03-10T10:00:00Z');

  it('runs once, that long after the session started', () => {
    const session = { anchor: start, sessionStartedAt: start };
    expect(next('00:10:00', '2026-03-10T09:00:00Z', session)).toBe('2026-03-10T10:10:00.000Z');
    expect(next('00:10:00', '2026-03-10T10:09:59.999Z', session)).toBe('2026-03-10T10:10:00.000Z');
    expect(next('00:10:00', '2026-03-10T10:10:00Z', session)).toBeNull();
    expect(next('00:10:00', '2026-03-10T12:00:00Z', session)).toBeNull();
  });

  it('has no run without a session, and runs again in the next session', () => {
    expect(next('00:10:00', '2026-03-10T10:05:00Z', { anchor: start, sessionStartedAt: null })).toBeNull();
    const later = { anchor: start, sessionStartedAt: at('2026-03-11T08:00:00Z') };
    expect(next('00:10:00', '2026-03-11T08:00:00Z', later)).toBe('2026-03-11T08:10:00.000Z');
  });
});

describe('nextRunAfter: robustness and speed', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns null for an invalid date', () => {
    const start = at('2026-01-01T00:00:00Z');
    for (const text of ['every:5min', 'at:09:00', 'cron:0 9 * * *', '00:10:00']) {
      expect(nextRunAfter(pattern(text), new Date(Number.NaN), { anchor: start, sessionStartedAt: start })).toBeNull();
    }
  });

  /** node-cron's own next-match search starts from the wall clock, so the clock is set to `after`. */
  function nodeCronNextRun(expression: string, after: Date): Date | null {
    const task = createTask(expression, () => undefined, { timezone: 'UTC' });
    vi.setSystemTime(after);
    try {
      return task.getNextRuns(1)[0] ?? null;
    } catch {
      return null; // node-cron gives up after 100 years
    } finally {
      void task.destroy();
    }
  }

  // Day fields are '*' half the time: with node-cron's AND of the two day fields, most random
  // pairs never match, and node-cron spends ~100 ms walking a century to say so.
  const field = (...choices: string[]) => fc.constantFrom(...choices);
  const dayField = (...choices: string[]) => fc.oneof(fc.constant('*'), fc.constantFrom(...choices));
  const cronExpression = fc
    .tuple(
      field('0', '15', '59', '0,30', '*/20', '5-45/20', '10-59/7'),
      field('*', '0', '30', '*/15', '10-20', '0,59'),
      field('*', '0', '23', '9-17', '*/6', '22-2'),
      dayField('1', '15', '31', '29', 'L', 'LW', '15W', '1W', 'L-3', '1-7', '28-31', '?'),
      field('*', '2', '1,7', 'feb', '*/3', '11-12'),
      dayField('?', '0', '5', 'mon-fri', '1#1', '5#5', '0L', '6L', '7', 'sat,sun'),
    )
    .map((parts) => parts.join(' '))
    .filter((expression) => validate(expression));
  const afterDate = fc.date({ min: at('2000-01-01T00:00:00Z'), max: at('2090-01-01T00:00:00Z'), noInvalidDate: true });

  it('agrees with node-cron\'s own next-run search', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let compared = 0;
    // A "never" costs node-cron a century-long walk (~100 ms), so one in eight of them is checked.
    fc.assert(
      fc.property(cronExpression, afterDate, fc.nat({ max: 7 }), (expression, after, sample) => {
        const ours = nextRunAfter({ kind: 'cron', expression }, after, noSession);
        if (ours === null && sample !== 0) return;
        const theirs = nodeCronNextRun(expression, after);
        const horizonEnd = after.getTime() + (SCHEDULE_LIMITS.cronHorizonDays - 1) * 86_400_000;
        if (ours === null) expect(theirs === null || theirs.getTime() > horizonEnd).toBe(true);
        else expect(ours.toISOString()).toBe(theirs?.toISOString());
        compared += 1;
      }),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(150);
  });

  it('answers within a few milliseconds for the slowest patterns', () => {
    const slowest: Array<[string, string]> = [
      ['cron:0 0 1 * 1#5', '2026-03-01T00:00:00Z'], // no match: walks the whole horizon
      ['cron:0 0 29 2 *', '2096-03-01T00:00:00Z'],
      ['cron:0 0 L * 5L', '2026-03-01T00:00:00Z'],
      ['cron:0,10,20,30,40,50 * * * * *', '2026-03-01T23:59:59Z'],
      ['every:10sec', '2090-03-01T00:00:00Z'],
      ['at:23:59', '2026-03-01T23:59:59Z'],
    ];
    for (const [text, after] of slowest) {
      const parsed = pattern(text);
      nextRunAfter(parsed, at(after), noSession);
      const started = performance.now();
      for (let run = 0; run < 20; run += 1) nextRunAfter(parsed, at(after), noSession);
      // Measured well under 5 ms each; the bound is loose so a busy machine does not fail it.
      expect((performance.now() - started) / 20, text).toBeLessThan(15);
    }
  });
});
