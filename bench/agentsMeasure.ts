import { readFileSync } from 'node:fs';
import { api, REQUEST_TIMEOUT_MS, type Service } from './agentsService.js';

/** bench:agents' measurements: the server process's CPU and memory, percentiles, and the agents' own action logs. */

/** What a board's agents are, for reading their action logs. */
export interface AgentsOfBoard {
  id: string;
  agents: Array<{ id: string; role: string }>;
}

/** Resident memory of a process, in MiB. */
export function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** CPU time (user + system) the process has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The p-th percentile of ascending values; NaN when there are none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Milliseconds for a table cell: two decimals below 10, '-' for no value. */
export const ms = (value: number) => (Number.isNaN(value) ? '-' : +value.toFixed(value < 10 ? 2 : 0));

/** Samples the server's RSS and a `GET /health` round trip every 250 ms until stopped. */
export function startSampling(service: Service) {
  const pid = service.child.pid!;
  const samples = { peakRss: rssMiB(pid), probes: [] as number[] };
  const timer = setInterval(() => {
    samples.peakRss = Math.max(samples.peakRss, rssMiB(pid));
    const started = performance.now();
    void fetch(`${service.url}/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      .then(async (response) => {
        await response.arrayBuffer();
        samples.probes.push(performance.now() - started);
      })
      .catch(() => undefined);
  }, 250);
  return { samples, stop: () => clearInterval(timer) };
}

/** The action logs of the first boards' agents (up to 200 entries each), summed up per role. */
export async function actionLogSample(service: Service, boards: AgentsOfBoard[]) {
  const byRole = new Map<string, Array<{ success: boolean; latencyMs: number; errorMessage: string | null }>>();
  for (const board of boards.slice(0, 3)) {
    for (const agent of board.agents) {
      const answer = await api(service, 'GET', `/boards/${board.id}/agents/${agent.id}/actions?limit=200`).catch((error: Error) => ({ status: 0, body: error.message }));
      if (answer.status !== 200) console.error(`action log of agent ${agent.id} not read: ${answer.status} ${JSON.stringify(answer.body)}`);
      else byRole.set(agent.role, [...(byRole.get(agent.role) ?? []), ...(answer.body as [])]);
    }
  }
  return [...byRole].map(([role, entries]) => {
    const errors = new Map<string, number>();
    for (const { errorMessage } of entries) if (errorMessage) errors.set(errorMessage, (errors.get(errorMessage) ?? 0) + 1);
    const topError = [...errors].sort((a, b) => b[1] - a[1])[0];
    const latencies = entries.map((entry) => entry.latencyMs).sort((a, b) => a - b);
    return {
      role,
      'log entries (3 boards)': entries.length,
      'successful %': Math.round((entries.filter((entry) => entry.success).length / entries.length) * 100),
      'avg latencyMs': +(latencies.reduce((sum, value) => sum + value, 0) / entries.length).toFixed(1),
      'p99 latencyMs': percentile(latencies, 99),
      'top error': topError ? `${topError[1]}× ${topError[0].slice(0, 60)}` : '-',
    };
  });
}
