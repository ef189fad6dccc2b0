/**
 * The event-loop probe of `npm run bench:realtime`, preloaded into BOTH servers under test
 * (compiled to dist/bench/eventLoopProbe.mjs, `node --import …/eventLoopProbe.mjs`) so the
 * two carry the same measuring cost. It imports only node: built-ins.
 *
 * Per phase (the bench names them over the IPC channel: boot, empty, setup, connect, load,
 * settle) it keeps: an event-loop delay histogram (monitorEventLoopDelay, 1 ms resolution),
 * CPU time (process.cpuUsage), GC time (PerformanceObserver 'gc' entries), RSS, and every
 * individual stall over 10 ms with its start. Stalls come from a 2 ms drift timer because the
 * histogram has no timestamps. Times are kept twice: `mono` is process.hrtime in µs, the clock
 * V8's CPU profiler stamps samples with (so bench/cpuProfileStalls.ts can line them up), and
 * `wall` is epoch ms for reading.
 *
 * With PROBE_ALLOCATIONS_DIR set, the probe also samples allocations during the load phase,
 * collected objects included (V8's sampling heap profiler), and writes them there as
 * `allocations-<pid>.heapprofile`: what feeds the garbage collector, by allocation site.
 *
 * Messages: {probe:'phase', name} starts a phase; {probe:'report', id} ends the current one
 * and answers {probe:'report', id, pid, phases}. Without an IPC channel the probe does nothing.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import type { PhaseReport, Stall } from './cpuProfileStalls.js';

const STALL_MS = 10;
const TICK_MS = 2;
const RESOLUTION_MS = 1;

const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const wallMs = () => performance.timeOrigin + performance.now();

interface Phase { name: string; startMono: number; startWall: number; cpu: NodeJS.CpuUsage; gcMs: number; gcMajorMs: number; gcCount: number; stalls: Stall[] }

const send = process.send?.bind(process);
if (send) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const finished: PhaseReport[] = [];
  let phase = startPhase('boot');

  function startPhase(name: string): Phase {
    histogram.reset();
    return { name, startMono: monoUs(), startWall: wallMs(), cpu: process.cpuUsage(), gcMs: 0, gcMajorMs: 0, gcCount: 0, stalls: [] };
  }

  /** The finished phase in milliseconds; the delay percentiles include the 1 ms timer period. */
  function endPhase(current: Phase): PhaseReport {
    const cpu = process.cpuUsage(current.cpu);
    const ms = (ns: number) => +(ns / 1e6).toFixed(2);
    const { stalls } = current;
    return {
      name: current.name,
      startMono: current.startMono,
      endMono: monoUs(),
      startWall: current.startWall,
      durationMs: +((monoUs() - current.startMono) / 1000).toFixed(1),
      delayP50Ms: ms(histogram.percentile(50)),
      delayP99Ms: ms(histogram.percentile(99)),
      delayMaxMs: ms(histogram.max),
      cpuMs: +((cpu.user + cpu.system) / 1000).toFixed(1),
      cpuUserMs: +(cpu.user / 1000).toFixed(1),
      gcMs: +current.gcMs.toFixed(1),
      gcMajorMs: +current.gcMajorMs.toFixed(1),
      gcCount: current.gcCount,
      stallsOver10: stalls.length,
      stallsOver50: stalls.filter((stall) => stall.ms > 50).length,
      maxStallMs: stalls.reduce((max, stall) => Math.max(max, stall.ms), 0),
      rssMiB: +(process.memoryUsage.rss() / 1048576).toFixed(1),
      stalls,
    };
  }

  // A drift timer: when a 2 ms interval fires more than 10 ms late, the loop was blocked
  // between the previous tick and this one; that window is the stall.
  let last = monoUs();
  setInterval(() => {
    const now = monoUs();
    const blockedMs = (now - last) / 1000 - TICK_MS;
    if (blockedMs > STALL_MS) {
      phase.stalls.push({ startMono: last, endMono: now, startWall: +(wallMs() - (now - last) / 1000).toFixed(1), ms: +blockedMs.toFixed(1) });
    }
    last = now;
  }, TICK_MS).unref();

  // GC time goes to the phase the observer reports it in (its callback runs soon after).
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      phase.gcMs += entry.duration;
      phase.gcCount += 1;
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) phase.gcMajorMs += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });

  const allocations = allocationSampler(process.env.PROBE_ALLOCATIONS_DIR);
  process.on('message', (message: { probe?: string; name?: string; id?: number } | null) => {
    if (message?.probe === 'phase') {
      finished.push(endPhase(phase));
      if (phase.name === 'load') allocations?.stop();
      phase = startPhase(String(message.name));
      if (phase.name === 'load') allocations?.start();
    } else if (message?.probe === 'report') {
      finished.push(endPhase(phase));
      phase = startPhase('after');
      send({ probe: 'report', id: message.id, pid: process.pid, phases: finished.splice(0) });
    }
  });
  // The channel must not keep a server alive that is shutting down.
  process.channel?.unref();
}

/** Samples every allocation (collected or not) between start and stop; the profile goes to `dir`. */
function allocationSampler(dir: string | undefined) {
  if (!dir) return null;
  const session = new Session();
  session.connect();
  return {
    start() {
      session.post('HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    },
    stop() {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (!error) writeFileSync(join(dir, `allocations-${process.pid}.heapprofile`), JSON.stringify(result.profile));
      });
    },
  };
}
