/**
 * Agent schedule patterns (docs/agents.md): `every:<n>sec|min|hour`, `at:HH:MM` (UTC),
 * `cron:<expression>` (UTC) and the elapsed form `HH:MM:SS` (time since the board's session
 * started, once per session). Time is passed in, never read: the scheduler asks for the next run
 * after "now" from its injected Clock, runs once when it is due, and asks again.
 *
 * Cron expressions are validated and expanded by node-cron (the stack's scheduler), so what we
 * accept is exactly what node-cron accepts. node-cron's matcher is not exported (package "exports"
 * has only the root, and the root offers a matcher only on a task object, whose next-run search
 * starts at the wall clock), so the search below walks node-cron's expanded fields itself, with
 * node-cron's semantics: day of month AND day of week must both match (not the classic cron OR),
 * and the tokens L, LW, nW, L-n, dL and d#n mean what they mean there. The tests check the walk
 * against node-cron's own search.
 */
import { parse as parseCronFields, validateDetailed } from 'node-cron';
import { assertNever } from '../util/assertNever.js';

export type SchedulePattern =
  | { kind: 'every'; intervalMs: number }
  | { kind: 'at'; hour: number; minute: number }
  | { kind: 'cron'; expression: string }
  | { kind: 'elapsed'; afterMs: number };

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
const UNIT_MS: Readonly<Record<string, number>> = { sec: SECOND_MS, min: 60 * SECOND_MS, hour: 3600 * SECOND_MS };

export const SCHEDULE_LIMITS = {
  /** Shortest interval between two runs, for `every:` and for the seconds field of a cron. */
  minIntervalMs: 10 * SECOND_MS,
  maxIntervalMs: 7 * DAY_MS,
  maxCronLength: 100,
  /** How far ahead a cron is searched: the longest gap between two 29 Februaries (2096 to 2104). */
  cronHorizonDays: 8 * 366,
} as const;

const PATTERN_FORMS = 'must be every:<n>sec|min|hour, at:HH:MM, cron:<expression> or HH:MM:SS';

type Parsed = SchedulePattern | { problem: string };

function parseEvery(rest: string): Parsed {
  const match = /^(\d{1,9})(sec|min|hour)$/.exec(rest);
  if (!match) return { problem: 'every: must be every:<n>sec, every:<n>min or every:<n>hour with a whole number n' };
  const intervalMs = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (intervalMs < SCHEDULE_LIMITS.minIntervalMs || intervalMs > SCHEDULE_LIMITS.maxIntervalMs) {
    return { problem: 'every: the interval must be between 10 seconds and 7 days' };
  }
  return { kind: 'every', intervalMs };
}

/** `at:9:00` is accepted as well as `at:09:00`; minutes always have two digits. */
function parseTimeOfDay(rest: string): Parsed {
  const match = /^(\d{1,2}):(\d{2})$/.exec(rest);
  const [hour, minute] = [Number(match?.[1]), Number(match?.[2])];
  if (!match || hour > 23 || minute > 59) return { problem: 'at: must be at:HH:MM, a UTC time of day from 00:00 to 23:59' };
  return { kind: 'at', hour, minute };
}

/** Hours may have one or two digits (up to 99:59:59); the run must come after the start itself. */
function parseElapsed(text: string): Parsed {
  const match = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  const [hours, minutes, seconds] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  if (!match || minutes > 59 || seconds > 59) return { problem: 'elapsed time must be HH:MM:SS with minutes and seconds below 60' };
  const afterMs = ((hours * 60 + minutes) * 60 + seconds) * SECOND_MS;
  if (afterMs === 0) return { problem: 'elapsed time must be at least 00:00:01' };
  return { kind: 'elapsed', afterMs };
}

/** Whether consecutive allowed seconds (wrapping into the next minute) are less than the minimum apart. */
function runsTooOften(seconds: readonly number[]): boolean {
  const sorted = [...seconds].sort((a, b) => a - b);
  const minGap = Math.min(...sorted.map((second, index) => (sorted[index + 1] ?? (sorted[0] as number) + 60) - second));
  return minGap * SECOND_MS < SCHEDULE_LIMITS.minIntervalMs;
}

function parseCron(rest: string): Parsed {
  const expression = rest.trim();
  if (expression === '') return { problem: 'cron: the expression is empty' };
  if (expression.length > SCHEDULE_LIMITS.maxCronLength) {
    return { problem: `cron: the expression is longer than ${SCHEDULE_LIMITS.maxCronLength} characters` };
  }
  // node-cron expands ranges into lists before it checks bounds, so `1-999999999` would build a
  // billion-element list; no field value needs more than two digits.
  if (/\d{3}/.test(expression)) return { problem: 'cron: numbers have at most two digits' };
  const validation = validateDetailed(expression);
  if (!validation.valid || validation.fields === undefined) {
    return { problem: `cron: ${validation.errors[0]?.message ?? 'invalid expression'}` };
  }
  if (runsTooOften(validation.fields.second)) return { problem: 'cron: runs must be at least 10 seconds apart' };
  return { kind: 'cron', expression };
}

/** Reads an agent schedule entry's `at`; surrounding whitespace is ignored. */
export function parseSchedulePattern(at: string): SchedulePattern | { problem: string } {
  if (typeof at !== 'string') return { problem: `schedule ${PATTERN_FORMS}` };
  const text = at.trim();
  if (text.startsWith('every:')) return parseEvery(text.slice('every:'.length));
  if (text.startsWith('at:')) return parseTimeOfDay(text.slice('at:'.length));
  if (text.startsWith('cron:')) return parseCron(text.slice('cron:'.length));
  if (/^\d{1,2}:\d{2}:\d{2}$/.test(text)) return parseElapsed(text);
  return { problem: `schedule ${PATTERN_FORMS}` };
}

interface CronFields {
  seconds: number[];
  minutes: number[];
  hours: number[];
  months: ReadonlySet<number>;
  daysOfMonth: (number | string)[];
  daysOfWeek: (number | string)[];
}

function cronFields(expression: string): CronFields {
  const fields = parseCronFields(expression);
  const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
  return {
    seconds: ascending(fields.second),
    minutes: ascending(fields.minute),
    hours: ascending(fields.hour),
    months: new Set(fields.month),
    daysOfMonth: fields.dayOfMonth,
    daysOfWeek: fields.dayOfWeek,
  };
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The weekday nearest to `target` within the month (node-cron's `W`), or -1. */
function nearestWeekday(year: number, month: number, target: number): number {
  const last = lastDayOfMonth(year, month);
  if (target < 1 || target > last) return -1;
  const weekday = new Date(Date.UTC(year, month - 1, target)).getUTCDay();
  if (weekday === 6) return target === 1 ? target + 2 : target - 1;
  if (weekday === 0) return target === last ? target - 2 : target + 1;
  return target;
}

function dayOfMonthMatches(tokens: readonly (number | string)[], year: number, month: number, day: number): boolean {
  const last = lastDayOfMonth(year, month);
  return tokens.some((token) => {
    if (typeof token === 'number') return token === day;
    if (token === 'L') return day === last;
    const weekdayNear = /^(\d{1,2}|L)W$/.exec(token);
    if (weekdayNear) return nearestWeekday(year, month, weekdayNear[1] === 'L' ? last : Number(weekdayNear[1])) === day;
    const beforeLast = /^L-(\d{1,2})$/.exec(token);
    return beforeLast !== null && last - Number(beforeLast[1]) === day;
  });
}

function dayOfWeekMatches(tokens: readonly (number | string)[], year: number, month: number, day: number): boolean {
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return tokens.some((token) => {
    if (typeof token === 'number') return token === weekday;
    const nth = /^([0-7])#([1-5])$/.exec(token);
    if (nth) return Number(nth[1]) % 7 === weekday && Math.floor((day - 1) / 7) + 1 === Number(nth[2]);
    const lastOfMonth = /^([0-7])L$/.exec(token);
    return lastOfMonth !== null && Number(lastOfMonth[1]) % 7 === weekday && day + 7 > lastDayOfMonth(year, month);
  });
}

/** The first allowed second of a matching day at or after `earliestSecond` (seconds since midnight). */
function firstTimeOfDay(fields: CronFields, earliestSecond: number): number | null {
  for (const hour of fields.hours) {
    if ((hour + 1) * 3600 <= earliestSecond) continue;
    for (const minute of fields.minutes) {
      const minuteStart = hour * 3600 + minute * 60;
      if (minuteStart + 60 <= earliestSecond) continue;
      const second = fields.seconds.find((candidate) => minuteStart + candidate >= earliestSecond);
      if (second !== undefined) return minuteStart + second;
    }
  }
  return null;
}

/** Walks day by day (a month at a time through months that do not match), in UTC. */
function nextCronRun(expression: string, after: Date): Date | null {
  const fields = cronFields(expression);
  const start = new Date((Math.floor(after.getTime() / SECOND_MS) + 1) * SECOND_MS);
  let day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  let earliestSecond = (start.getTime() - day) / SECOND_MS;
  const horizon = day + SCHEDULE_LIMITS.cronHorizonDays * DAY_MS;
  while (day < horizon) {
    const date = new Date(day);
    const [year, month] = [date.getUTCFullYear(), date.getUTCMonth() + 1];
    if (!fields.months.has(month)) {
      day = Date.UTC(year, month, 1);
    } else {
      const dayOfMonth = date.getUTCDate();
      if (dayOfMonthMatches(fields.daysOfMonth, year, month, dayOfMonth) && dayOfWeekMatches(fields.daysOfWeek, year, month, dayOfMonth)) {
        const second = firstTimeOfDay(fields, earliestSecond);
        if (second !== null) return new Date(day + second * SECOND_MS);
      }
      day += DAY_MS;
    }
    earliestSecond = 0;
  }
  return null;
}

function nextInterval(intervalMs: number, after: Date, anchor: Date): Date {
  const periods = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / intervalMs) + 1);
  return new Date(anchor.getTime() + periods * intervalMs);
}

function nextTimeOfDay(hour: number, minute: number, after: Date): Date {
  const sameDay = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), hour, minute);
  return new Date(sameDay > after.getTime() ? sameDay : sameDay + DAY_MS);
}

/**
 * The first run strictly after `after` (null when none: elapsed with no session, or already past
 * for this session; a cron with no match within the horizon; an invalid date). `anchor` = when
 * the schedule was set up (every: counts from it), `sessionStartedAt` = current session start or
 * null. The pattern must come from parseSchedulePattern.
 */
export function nextRunAfter(
  pattern: SchedulePattern,
  after: Date,
  context: { anchor: Date; sessionStartedAt: Date | null },
): Date | null {
  if (Number.isNaN(after.getTime())) return null;
  switch (pattern.kind) {
    case 'every':
      return Number.isNaN(context.anchor.getTime()) ? null : nextInterval(pattern.intervalMs, after, context.anchor);
    case 'at':
      return nextTimeOfDay(pattern.hour, pattern.minute, after);
    case 'cron':
      return nextCronRun(pattern.expression, after);
    case 'elapsed': {
      if (context.sessionStartedAt === null) return null;
      const run = context.sessionStartedAt.getTime() + pattern.afterMs;
      return run > after.getTime() ? new Date(run) : null;
    }
    default:
      return assertNever(pattern);
  }
}
