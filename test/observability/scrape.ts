import { expect } from 'vitest';
import { request } from '../helpers/testServer.js';

/** One sample line of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape parsed: HELP and TYPE per family, and every sample. */
export interface Scrape {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample of `name` with exactly these labels (0 when absent: a series not yet created). */
  value(name: string, labels?: Record<string, string>): number;
  /** The distinct values of `label` among the samples of `name`. */
  labelValues(name: string, label: string): Set<string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const NUMBER: Record<string, number> = { '+Inf': Infinity, '-Inf': -Infinity, NaN: NaN, Nan: NaN };

/** Parses the Prometheus text exposition format (0.0.4), failing on any line it does not recognise. */
export function parseExposition(text: string): Scrape {
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      (comment[1] === 'HELP' ? help : type).set(comment[2]!, comment[3]!);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a line of the Prometheus text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(LABEL)) labels[key!] = value!;
    const value = sample[3]! in NUMBER ? NUMBER[sample[3]!]! : Number(sample[3]);
    if (!(sample[3]! in NUMBER) && Number.isNaN(value)) throw new Error(`not a number: ${line}`);
    samples.push({ name: sample[1]!, labels, value });
  }
  const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => a[key] === value);
  return {
    help,
    type,
    samples,
    value: (name, labels = {}) => samples.find((sample) => sample.name === name && sameLabels(sample.labels, labels))?.value ?? 0,
    labelValues: (name, label) => new Set(samples.filter((sample) => sample.name === name && label in sample.labels).map((sample) => sample.labels[label]!)),
  };
}

/** `GET /metrics` of a running server, expecting 200 and the Prometheus text format; parsed. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const answer = await request<string>(url, 'GET', '/metrics', undefined, headers);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(answer.body);
}

/** The family a sample belongs to (a histogram's `_bucket`, `_sum` and `_count` belong to it). */
export function familyOf(sample: string, families: Map<string, string>): string {
  if (families.has(sample)) return sample;
  const base = sample.replace(/_(bucket|sum|count)$/, '');
  return families.has(base) ? base : sample;
}
