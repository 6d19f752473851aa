// From measured load runs to the rows of the table: throughput, and its ratios to the echo and to offline REST.
import type { CpuPerRequest } from './proc-stat.js';
import type { ScenarioResult } from './results.js';
import type { LoadRun } from './wrk.js';

export interface Measurement {
  id: string;
  label: string;
  note: string;
  run: LoadRun;
  cpu: CpuPerRequest;
}

const perSecond = (run: LoadRun) => (run.durationSeconds > 0 ? run.requests / run.durationSeconds : 0);

/** One row per measurement, in order; the row with id "echo" is the baseline every ratio divides by. */
export function scenarioRows(measurements: Measurement[]): ScenarioResult[] {
  const echo = measurements.find((m) => m.id === 'echo');
  if (!echo || perSecond(echo.run) === 0) throw new Error('no echo measurement to compare the scenarios with');
  const rest = measurements.find((m) => m.id === 'offline');
  return measurements.map((m) => ({
    id: m.id,
    label: m.label,
    requests: m.run.requests,
    requestsPerSecond: perSecond(m.run),
    p50Ms: m.run.p50Ms,
    p99Ms: m.run.p99Ms,
    ratioToEcho: perSecond(m.run) / perSecond(echo.run),
    ratioToRest: m.id === 'mcp' && rest && perSecond(rest.run) > 0 ? perSecond(m.run) / perSecond(rest.run) : null,
    cpuUsPerRequest: m.cpu,
    socketErrors: m.run.socketErrors,
    non2xx: m.run.non2xx,
    note: m.note,
  }));
}
