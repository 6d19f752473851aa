// The side-by-side table of `--baseline`: per scenario, the medians of both builds' runs and the change from the baseline.
import { change } from './compare.js';
import type { BenchResults, PaidResult, ScenarioResult } from './results.js';
import { CPU_COLUMNS, CPU_LEGEND, ratio, renderTable, thousands, us, warmedFor } from './table.js';

/** One build's runs: its short commit and what each round measured. */
export interface Side {
  commit: string;
  runs: BenchResults[];
}

/** The median of the numbers among `values` (the mean of the middle two for an even count); null when there is none. */
export function median(values: readonly (number | null | undefined)[]): number | null {
  const numbers = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  const middle = numbers.length >> 1;
  return numbers.length % 2 === 1 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2;
}

interface Metric<T> {
  name: string;
  pick: (row: T) => number | null | undefined;
  show: (n: number) => string;
}

const ms = (n: number) => n.toFixed(2);
const SCENARIO_METRICS: Metric<ScenarioResult>[] = [
  { name: 'req/s', pick: (row) => row.requestsPerSecond, show: thousands },
  { name: 'vs echo', pick: (row) => row.ratioToEcho, show: ratio },
  { name: 'p99 ms', pick: (row) => row.p99Ms, show: ms },
  // A file of a run before the split by thread has no cpuUsPerRequest: its cells are empty.
  ...CPU_COLUMNS.map((column): Metric<ScenarioResult> => ({ name: `${column} us/req`, pick: (row) => row.cpuUsPerRequest?.[column], show: us })),
];
const PAID_METRICS: Metric<PaidResult>[] = [
  { name: 'x402 p50 ms', pick: (paid) => paid.paid.p50Ms, show: ms },
  { name: 'x402 p99 ms', pick: (paid) => paid.paid.p99Ms, show: ms },
  { name: 'added by paying, p50 ms', pick: (paid) => paid.paid.p50Ms - paid.free.p50Ms, show: ms },
];

/** The rows of one block: a metric's medians on both sides and the change; a metric neither side measured is left out. */
function blockRows<T>(label: string, metrics: Metric<T>[], before: T[], after: T[]): string[][] {
  const rows: string[][] = [];
  for (const metric of metrics) {
    const [old, now] = [median(before.map(metric.pick)), median(after.map(metric.pick))];
    if (old === null && now === null) continue;
    const cell = (n: number | null) => (n === null ? '-' : metric.show(n));
    rows.push([rows.length === 0 ? label : '', metric.name, cell(old), cell(now), old === null || now === null ? '-' : change(old, now)]);
  }
  return rows;
}

/** Scenarios in the order the runs met them (the echo, shared by both sides of a round, is in the header instead). */
function scenarioIds(before: Side, after: Side): string[] {
  const ids = [...after.runs, ...before.runs].flatMap((run) => run.scenarios.map((row) => row.id)).filter((id) => id !== 'echo');
  return ids.filter((id, i) => ids.indexOf(id) === i);
}

export function baselineTable(before: Side, after: Side): string {
  const rows = (side: Side, id: string) => side.runs.flatMap((run) => run.scenarios.filter((row) => row.id === id));
  const body = scenarioIds(before, after).flatMap((id) => {
    const label = (rows(after, id)[0] ?? rows(before, id)[0]).label;
    return blockRows(label, SCENARIO_METRICS, rows(before, id), rows(after, id));
  });
  const paid = (side: Side) => side.runs.flatMap((run) => (run.paid ? [run.paid] : []));
  body.push(...blockRows('x402, one call at a time', PAID_METRICS, paid(before), paid(after)));
  const headings = ['scenario', 'median of', `${before.commit} (baseline)`, after.commit, 'change'];
  return renderTable(headings, body, [false, false, true, true, true]);
}

/** Everything `--baseline` prints: which commits, how they were run, the echo, the table. */
export function formatBaseline(ref: string, before: Side, after: Side): string {
  const first = after.runs[0] ?? before.runs[0];
  const echo = (side: Side) => side.runs.flatMap((run) => run.scenarios.filter((row) => row.id === 'echo').map((row) => row.requestsPerSecond));
  const lines = [
    `npm run bench --baseline ${ref}: ${before.commit} (baseline) against ${after.commit}, ${first.date}, node ${first.node}`,
    `${before.runs.length} round${before.runs.length === 1 ? '' : 's'}, the baseline first in the odd-numbered ones and ${after.commit} first in the others, with one echo per round for both; medians of the rounds`,
    `load generator: ${first.generatorLabel}, ${first.seconds} s per scenario${warmedFor(first)}; uWS echo median ${thousands(median(echo(after)) ?? NaN)} req/s`,
    `CPU: us per request over the timed run, from /proc at ${first.clockTicksPerSecond} ticks/s;`,
    CPU_LEGEND,
    'change: from the baseline to this checkout, in percent of the baseline',
    '',
    baselineTable(before, after),
  ];
  return `${lines.join('\n')}\n`;
}
