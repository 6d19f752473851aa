// The printed form of a bench run: a header naming what was measured and how, the scenario table, the paid table.
import type { CpuPerRequest } from './proc-stat.js';
import type { BenchResults, PaidResult, ScenarioResult } from './results.js';

/** A Markdown table padded to line up in a terminal; `right` marks the columns of numbers. */
export function renderTable(headings: string[], rows: string[][], right: boolean[]): string {
  const widths = headings.map((heading, column) => Math.max(heading.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (right[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (right[i] ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(headings), rule, ...rows.map(line)].join('\n');
}

export const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (digits: number) => (n: number | null) => (n === null || !Number.isFinite(n) ? '-' : n.toFixed(digits));
const ms = fixed(2);
export const us = fixed(1);
export const ratio = fixed(3);

/** The CPU columns, in the order printed; each is microseconds per request over the timed run. */
export const CPU_COLUMNS: readonly (keyof CpuPerRequest)[] = ['loop', 'pool', 'index', 'tree', 'others', 'process', 'anvil'];
/** What the header says each CPU column is. */
export const CPU_LEGEND =
  'loop = main thread (event loop), pool = scoring threads, index = audit index thread, tree = Merkle tree thread, ' +
  'others = every other thread (libuv, V8), process = all threads; anvil = the devnet\'s anvil process, not in process';

function scenarioCells(row: ScenarioResult): string[] {
  const note = row.ratioToRest === null ? row.note : [`${ratio(row.ratioToRest)} of offline REST`, row.note].filter(Boolean).join('; ');
  return [
    row.label, thousands(row.requestsPerSecond), ms(row.p50Ms), ms(row.p99Ms), ratio(row.ratioToEcho),
    ...CPU_COLUMNS.map((column) => us(row.cpuUsPerRequest[column])), String(row.socketErrors + row.non2xx), note,
  ];
}

export function scenarioTable(rows: ScenarioResult[]): string {
  const headings = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs echo', ...CPU_COLUMNS, 'errors', 'note'];
  return renderTable(headings, rows.map(scenarioCells), [false, ...headings.slice(1, -1).map(() => true), false]);
}

export function paidTable(paid: PaidResult): string {
  const rows = [
    ['analyze/free', ms(paid.free.p50Ms), ms(paid.free.p99Ms)],
    ['x402/analyze (verify + settle)', ms(paid.paid.p50Ms), ms(paid.paid.p99Ms)],
    ['added by paying', ms(paid.paid.p50Ms - paid.free.p50Ms), ms(paid.paid.p99Ms - paid.free.p99Ms)],
  ];
  return renderTable(['one call at a time', 'p50 ms', 'p99 ms'], rows, [false, true, true]);
}

const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');

/** Everything `npm run bench` prints for one run, the JSON file's path aside. */
export function formatResults(results: BenchResults): string {
  const lines = [
    `npm run bench: commit ${results.commit}, ${results.date}, node ${results.node}`,
    `load generator: ${results.generatorLabel}, ${results.seconds} s per scenario${warmedFor(results)}, the same for the echo and every row`,
    `load average ${loads(results.loadAverage.start)} at start, ${loads(results.loadAverage.end)} at end`,
    `CPU columns: us per request over the timed run, from /proc at ${results.clockTicksPerSecond} ticks/s;`,
    CPU_LEGEND,
    '',
    scenarioTable(results.scenarios),
  ];
  if (results.paid) {
    lines.push('', `x402 on the devnet: ${results.paid.calls} calls on each path, one at a time, a new wallet each`, paidTable(results.paid));
  }
  return `${lines.join('\n')}\n`;
}

/** ", each after N s of warm-up load" for a run that recorded its warm-up, nothing for one from before. */
export function warmedFor(results: Pick<BenchResults, 'warmSeconds'>): string {
  return results.warmSeconds === undefined ? '' : `, each after ${results.warmSeconds} s of warm-up load`;
}
