/**
 * Which functions ran inside the event-loop stalls that bench/eventLoopProbe.mjs found.
 * Used by `npm run bench:realtime -- --profile`, or by hand:
 *   npx tsx bench/cpuProfileStalls.ts <CPU….cpuprofile> <probe-<pid>.json>
 *
 * Clocks: a .cpuprofile's startTime and timeDeltas are µs of V8's monotonic TimeTicks, which
 * on Linux is CLOCK_MONOTONIC, the clock of process.hrtime(); the probe stamps stalls and
 * phases with process.hrtime in µs, so both lie on one axis. The check printed first: the
 * profile must start a little before the probe's first phase (the profiler starts before
 * preloads run) and end after its last.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface Stall { startMono: number; endMono: number; startWall: number; ms: number }
export interface PhaseReport {
  name: string; startMono: number; endMono: number; startWall: number; durationMs: number;
  delayP50Ms: number; delayP99Ms: number; delayMaxMs: number; cpuMs: number; cpuUserMs: number;
  gcMs: number; gcMajorMs: number; gcCount: number; stallsOver10: number; stallsOver50: number;
  maxStallMs: number; rssMiB: number; stalls: Stall[];
}
interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** "name file:line" of a profile node, with the path cut to the project or the package. */
function label(node: ProfileNode | undefined): string {
  if (!node) return GAP_LABEL;
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const path = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(`${process.cwd()}/`, '');
  return `${functionName || '(anonymous)'} ${path}:${lineNumber + 1}`;
}

/** Longest a sample stands for; the rest of a longer gap had no samples at all. */
const MAX_SAMPLE_US = 5000;
/** Where a gap between samples goes: the profiler samples a running process, so no samples means not running. */
const GAP = -1;
const GAP_LABEL = '(no samples: main thread not running; core 1 taken by its other threads or other processes)';

/** Each sample's time (µs, monotonic) and how long it stands for (until the next sample, at most 5 ms). */
function sampleTimes(profile: CpuProfile): Array<{ at: number; us: number; node: number }> {
  const out: Array<{ at: number; us: number; node: number }> = [];
  let at = profile.startTime;
  profile.samples.forEach((node, index) => {
    at += profile.timeDeltas[index] ?? 0;
    out.push({ at, us: 0, node });
  });
  return out.flatMap((sample, index) => {
    const until = out[index + 1]?.at ?? profile.endTime;
    sample.us = Math.min(until - sample.at, MAX_SAMPLE_US);
    return until - sample.at > MAX_SAMPLE_US ? [sample, { at: sample.at + MAX_SAMPLE_US, us: until - sample.at - MAX_SAMPLE_US, node: GAP }] : [sample];
  });
}

/** The project's own frame nearest the leaf (dist/ or src/, not a package), or the leaf itself. */
function ownFrame(nodeId: number, byId: Map<number, ProfileNode>, parents: Map<number, number>): ProfileNode | undefined {
  const leaf = byId.get(nodeId);
  if (!leaf) return undefined;
  for (let id: number | undefined = nodeId; id !== undefined; id = parents.get(id)) {
    const url = byId.get(id)!.callFrame.url;
    if (/\/(dist|src)\//.test(url) && !url.includes('node_modules')) return byId.get(id)!;
  }
  return leaf;
}

function printTop(title: string, totals: Map<string, number>, wholeUs: number, rows = 15): void {
  console.log(`\n${title} (${(wholeUs / 1000).toFixed(1)} ms sampled)`);
  console.log('| function (url:line) | ms | share |\n|---|---|---|');
  for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`| ${name} | ${(us / 1000).toFixed(1)} | ${((us / wholeUs) * 100).toFixed(1)} % |`);
  }
}

const add = (totals: Map<string, number>, key: string, us: number) => totals.set(key, (totals.get(key) ?? 0) + us);

/** Prints self time inside the stalls of connect/load/settle, the nearest own frames, the largest stalls, and the load's top self time. */
export function analyzeProfile(profile: CpuProfile, phases: PhaseReport[]): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const samples = sampleTimes(profile);
  const first = phases[0]!;
  const last = phases[phases.length - 1]!;
  console.log(`clock check: profile starts ${((first.startMono - profile.startTime) / 1000).toFixed(1)} ms before the probe's first phase and ends ${((profile.endTime - last.endMono) / 1000).toFixed(1)} ms after its last (both must be ≥ 0)`);

  const watched = phases.filter((phase) => ['connect', 'load', 'settle'].includes(phase.name));
  const stalls = watched.flatMap((phase) => phase.stalls.map((stall) => ({ ...stall, phase })));
  const inStall = new Map<string, number>();
  const ownInStall = new Map<string, number>();
  const perStall = stalls.map(() => new Map<string, number>());
  let stallUs = 0;
  for (const sample of samples) {
    const index = stalls.findIndex((stall) => sample.at >= stall.startMono && sample.at < stall.endMono);
    if (index < 0) continue;
    stallUs += sample.us;
    add(inStall, label(byId.get(sample.node)), sample.us);
    add(ownInStall, label(ownFrame(sample.node, byId, parents)), sample.us);
    add(perStall[index]!, label(byId.get(sample.node)), sample.us);
  }
  console.log(`${stalls.length} stalls > 10 ms in connect/load/settle, ${stalls.reduce((sum, stall) => sum + stall.ms, 0).toFixed(0)} ms in all`);
  if (stalls.length > 0) {
    printTop('Self time inside stalls', inStall, stallUs);
    printTop("Inside stalls, by the project's own frame nearest the leaf (inclusive of the packages it calls)", ownInStall, stallUs);
    console.log('\nLargest stalls (phase+offset, length: top self-time functions)');
    const largest = stalls.map((stall, index) => ({ stall, top: perStall[index]! })).sort((a, b) => b.stall.ms - a.stall.ms).slice(0, 12);
    for (const { stall, top } of largest) {
      const names = [...top].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([name, us]) => `${name} ${(us / 1000).toFixed(1)} ms`);
      console.log(`- ${stall.phase.name}+${((stall.startMono - stall.phase.startMono) / 1e6).toFixed(2)} s, ${stall.ms} ms: ${names.join('; ')}`);
    }
  }
  const load = phases.find((phase) => phase.name === 'load');
  if (!load) return;
  const loadTotals = new Map<string, number>();
  let loadUs = 0;
  for (const sample of samples) {
    if (sample.at < load.startMono || sample.at >= load.endMono) continue;
    loadUs += sample.us;
    add(loadTotals, label(byId.get(sample.node)), sample.us);
  }
  printTop('Self time during the whole load phase', loadTotals, loadUs, 20);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [profileFile, probeFile] = process.argv.slice(2);
  if (!profileFile || !probeFile) throw new Error('usage: tsx bench/cpuProfileStalls.ts <file.cpuprofile> <probe.json>');
  analyzeProfile(JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile, JSON.parse(readFileSync(probeFile, 'utf8')) as PhaseReport[]);
}
