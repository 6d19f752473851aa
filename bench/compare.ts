// `npm run bench -- --compare old.json`: each scenario of an earlier run beside this one's, with the change.
import type { BenchResults, ScenarioResult } from './results.js';
import { ratio, renderTable, thousands, warmedFor } from './table.js';

/** The relative change from `before` to `after` as "+3.2%"; "-" when there is nothing to divide by. */
export function change(before: number, after: number): string {
  if (!Number.isFinite(before) || !Number.isFinite(after) || before === 0) return '-';
  const percent = ((after - before) / before) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

function pairCells(label: string, before: ScenarioResult | undefined, after: ScenarioResult | undefined): string[] {
  const cells = (row: ScenarioResult | undefined, pick: (r: ScenarioResult) => number, show: (n: number) => string) => (row ? show(pick(row)) : '-');
  const delta = (pick: (r: ScenarioResult) => number) => (before && after ? change(pick(before), pick(after)) : before ? 'gone' : 'new');
  const rps = (r: ScenarioResult) => r.requestsPerSecond;
  const vsEcho = (r: ScenarioResult) => r.ratioToEcho;
  const p99 = (r: ScenarioResult) => r.p99Ms;
  return [
    label,
    cells(before, rps, thousands), cells(after, rps, thousands), delta(rps),
    cells(before, vsEcho, ratio), cells(after, vsEcho, ratio), delta(vsEcho),
    cells(before, p99, (n) => n.toFixed(2)), cells(after, p99, (n) => n.toFixed(2)), delta(p99),
  ];
}

/** Rows in this run's order, then the scenarios only the earlier run had; matched by id. */
export function comparisonTable(before: BenchResults, after: BenchResults): string {
  const ids = [...after.scenarios.map((row) => row.id), ...before.scenarios.map((row) => row.id)].filter((id, i, all) => all.indexOf(id) === i);
  const rows = ids.map((id) => {
    const [old, now] = [before.scenarios.find((row) => row.id === id), after.scenarios.find((row) => row.id === id)];
    return pairCells((now ?? old)!.label, old, now);
  });
  const headings = ['scenario', 'req/s old', 'req/s new', 'change', 'vs echo old', 'vs echo new', 'change', 'p99 ms old', 'p99 ms new', 'change'];
  return renderTable(headings, rows, [false, ...Array<boolean>(9).fill(true)]);
}

/** The comparison as printed: which runs, a warning when they were not measured alike, the table. */
export function formatComparison(before: BenchResults, beforePath: string, after: BenchResults): string {
  const lines = [`compared with ${beforePath}: commit ${before.commit}, ${before.date}, ${before.generatorLabel}, ${before.seconds} s per scenario${warmedFor(before)}`];
  if (before.generatorLabel !== after.generatorLabel) {
    lines.push(`the load generators differ (${before.generatorLabel} then ${after.generatorLabel}): compare the ratios, not req/s or latency`);
  }
  if (before.warmSeconds !== after.warmSeconds) {
    const warm = (results: BenchResults) => (results.warmSeconds === undefined ? 'warm-up requests only' : `${results.warmSeconds} s of warm-up load`);
    lines.push(`the warm-ups differ (${warm(before)} then ${warm(after)}): part of any change is the warm-up's, not the code's`);
  }
  lines.push('', comparisonTable(before, after));
  return `${lines.join('\n')}\n`;
}
