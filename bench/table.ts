// The printed form of a bench run: a header naming what was measured and how, the scenario table, the paid table.
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
const us = fixed(1);
export const ratio = fixed(3);

function scenarioCells(row: ScenarioResult): string[] {
  const note = row.ratioToRest === null ? row.note : [`${ratio(row.ratioToRest)} of offline REST`, row.note].filter(Boolean).join('; ');
  return [
    row.label, thousands(row.requestsPerSecond), ms(row.p50Ms), ms(row.p99Ms), ratio(row.ratioToEcho),
    us(row.loopCpuUsPerRequest), us(row.processCpuUsPerRequest), String(row.socketErrors + row.non2xx), note,
  ];
}

export function scenarioTable(rows: ScenarioResult[]): string {
  const headings = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs echo', 'loop CPU us/req', 'process CPU us/req', 'errors', 'note'];
  return renderTable(headings, rows.map(scenarioCells), [false, true, true, true, true, true, true, true, false]);
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
    `load generator: ${results.generatorLabel}, ${results.seconds} s per scenario, the same for the echo and every row`,
    `load average ${loads(results.loadAverage.start)} at start, ${loads(results.loadAverage.end)} at end`,
    `CPU per request from /proc at ${results.clockTicksPerSecond} ticks/s: loop = the server's main thread, process = all its threads`,
    '',
    scenarioTable(results.scenarios),
  ];
  if (results.paid) {
    lines.push('', `x402 on the devnet: ${results.paid.calls} calls on each path, one at a time, a new wallet each`, paidTable(results.paid));
  }
  return `${lines.join('\n')}\n`;
}
