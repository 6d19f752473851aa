// A bench run's results, fixed, for the table, comparison and file tests.
import type { CpuPerRequest } from '../../bench/proc-stat.js';
import type { BenchResults, ScenarioResult } from '../../bench/results.js';

/** CPU per request of a service row on the devnet; `extra` replaces columns. */
export function cpu(extra: Partial<CpuPerRequest> = {}): CpuPerRequest {
  return { loop: 80, pool: 15.5, index: 2, tree: 1, others: 21.75, process: 120.25, anvil: 40, ...extra };
}

export function row(id: string, requestsPerSecond: number, ratioToEcho: number, p99Ms: number, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    id, label: id, requests: requestsPerSecond * 2, requestsPerSecond, p50Ms: p99Ms / 2, p99Ms, ratioToEcho, ratioToRest: null,
    cpuUsPerRequest: cpu(), socketErrors: 0, non2xx: 0, note: '', ...extra,
  };
}

export function results(scenarios: ScenarioResult[], extra: Partial<BenchResults> = {}): BenchResults {
  return {
    schema: 'trade-guardrail-bench/1', commit: 'abc1234', date: '2026-11-23T10:00:00.000Z', node: 'v20.20.2',
    generator: 'wrk', generatorLabel: 'wrk -t1 -c64 (bench/analyze.lua)', connections: 64, seconds: 10, clockTicksPerSecond: 100,
    loadAverage: { start: [0.5, 0.25, 1], end: [1.5, 0.75, 1.125] }, scenarios, paid: null, ...extra,
  };
}
