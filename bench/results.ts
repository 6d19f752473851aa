// What `npm run bench` records: the JSON it writes beside the table, and the check an old file passes before --compare uses it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuPerRequest } from './proc-stat.js';

/**
 * The file's format, `trade-guardrail-bench/1`. Plain JSON, one object:
 *
 *   schema          "trade-guardrail-bench/1"
 *   commit          `git rev-parse --short HEAD`, "+dirty" when tracked files had changes
 *   date            ISO 8601 time the run started
 *   node            process.version of the bench (the services run on the same node)
 *   generator       "wrk" or "autocannon"; generatorLabel, e.g. "wrk -t1 -c64"
 *   connections     concurrent connections of every load run; seconds: length of each measured run
 *   warmSeconds     load each row had before its measured run, after its warm-up requests (absent in files written before it was added)
 *   clockTicksPerSecond  `getconf CLK_TCK`, the unit /proc's CPU times were read in
 *   loadAverage     { start: [1, 5, 15 min], end: [1, 5, 15 min] }
 *   scenarios       rows of the table, in order, each:
 *     id                  stable key --compare matches on: echo, echo-burn, echo-address, fleet, fresh, bearer, offline, offline-fresh, edge, mcp, long, cluster-k1, cluster-k3
 *     label               what the row measured
 *     requests            requests completed in the measured run; requestsPerSecond over its duration
 *     p50Ms, p99Ms        latency percentiles from the load generator
 *     ratioToEcho         requestsPerSecond / the echo row's (1 for the echo itself)
 *     ratioToRest         MCP only: requestsPerSecond / the offline REST row's; null elsewhere
 *     cpuUsPerRequest     CPU (utime + stime from /proc) per request over the timed run, us: { loop, pool,
 *                         index, tree, others, process, anvil }, each a number or null (no such thread, no
 *                         anvil); bench/threads.ts says which thread is which. Files written before the split
 *                         have loopCpuUsPerRequest and processCpuUsPerRequest instead; nothing reads those now
 *     socketErrors, non2xx    what the generator counted as failed (connect, read, write, timeout), and answers
 *                         without the status the row expects (any 2xx; the edge row's, 404)
 *     note                free text shown in the table's last column
 *   paid            null when not run, else { calls, free: { p50Ms, p99Ms }, paid: { p50Ms, p99Ms } }:
 *                   one call at a time on the devnet, analyze/free against x402/analyze
 */
export const RESULTS_SCHEMA = 'trade-guardrail-bench/1';

export interface ScenarioResult {
  id: string;
  label: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ratioToEcho: number;
  ratioToRest: number | null;
  cpuUsPerRequest: CpuPerRequest;
  socketErrors: number;
  non2xx: number;
  note: string;
}

export interface Percentiles {
  p50Ms: number;
  p99Ms: number;
}

export interface PaidResult {
  calls: number;
  free: Percentiles;
  paid: Percentiles;
}

export interface BenchResults {
  schema: typeof RESULTS_SCHEMA;
  commit: string;
  date: string;
  node: string;
  generator: 'wrk' | 'autocannon';
  generatorLabel: string;
  connections: number;
  seconds: number;
  warmSeconds?: number;
  clockTicksPerSecond: number;
  loadAverage: { start: number[]; end: number[] };
  scenarios: ScenarioResult[];
  paid: PaidResult | null;
}

/** The results in `text`, or an Error saying what is wrong with them; `source` names the file in messages. */
export function parseResults(text: string, source: string): BenchResults {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
  const results = value as Partial<BenchResults> | null;
  if (typeof results !== 'object' || results === null || results.schema !== RESULTS_SCHEMA) {
    throw new Error(`${source} is not a bench result: its "schema" is not "${RESULTS_SCHEMA}"`);
  }
  if (!Array.isArray(results.scenarios)) throw new Error(`${source} has no "scenarios" list`);
  results.scenarios.forEach((row, index) => {
    const bad = ['requestsPerSecond', 'ratioToEcho', 'p99Ms'].find((field) => typeof (row as unknown as Record<string, unknown>)?.[field] !== 'number');
    if (typeof row?.id !== 'string' || bad) {
      throw new Error(`${source}: scenarios[${index}] lacks ${bad ? `a numeric "${bad}"` : 'a string "id"'}`);
    }
  });
  return results as BenchResults;
}

/** Reads and checks an earlier run's file, failing with one line that names it. */
export function readResults(path: string): BenchResults {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  return parseResults(text, path);
}

/** Writes the run as `<dir>/<date>.json` and again as `<dir>/latest.json`; returns the first path. */
export function writeResults(dir: string, results: BenchResults): string {
  mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const path = join(dir, `${results.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, text);
  writeFileSync(join(dir, 'latest.json'), text);
  return path;
}
