// `npm run bench -- --baseline <ref>`: that commit's build and this checkout's, run alternately in the same minutes, judged side by side.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { addBaseline, buildBaseline, type BaselineWorktree } from './baseline-worktree.js';
import { formatBaseline, type Side } from './baseline-table.js';
import { terminateRunning } from './harness.js';
import { measureEcho, runResults, runScenarios, type RunSetup } from './run-scenarios.js';
import { commitLabel, loadAverage } from './run-info.js';
import { THIS_BUILD, THIS_CHECKOUT, type ServiceBuild } from './service.js';

/** The file `--baseline` writes beside the single runs' (format: every round of both sides, as bench/results.ts describes one run). */
export const BASELINE_SCHEMA = 'trade-guardrail-bench-baseline/1';

/**
 * Removes the worktree when the bench is stopped (Ctrl-C, kill) as well as when it ends or
 * fails: the services started from it are stopped first. Returns what undoes the handlers.
 */
function removeOnSignal(worktree: BaselineWorktree): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: stopping the services and removing ${worktree.build.dir}\n`);
    terminateRunning();
    worktree.remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** One round: the echo once, then each build in the order given; both sides' rows are divided by the same echo. */
async function round(setup: RunSetup, sides: { build: ServiceBuild; side: Side }[]): Promise<void> {
  const started = { date: new Date().toISOString(), load: loadAverage() };
  const echo = await measureEcho(setup, 0);
  for (const { build, side } of sides) {
    process.stderr.write(`-- ${build.commit}, round ${side.runs.length + 1}\n`);
    const { measurements, paid } = await runScenarios(build, setup);
    side.runs.push(runResults(build.commit, setup, started, [echo, ...measurements], paid));
  }
}

export async function runBaseline(ref: string, rounds: number, setup: RunSetup, resultsDir: string): Promise<void> {
  const worktree = addBaseline(THIS_CHECKOUT, ref);
  const undo = removeOnSignal(worktree);
  const current: ServiceBuild = { ...THIS_BUILD, commit: commitLabel() };
  const before: Side = { commit: worktree.build.commit, runs: [] };
  const after: Side = { commit: current.commit, runs: [] };
  try {
    await buildBaseline(worktree);
    const sides = [{ build: worktree.build, side: before }, { build: current, side: after }];
    // The order turns every round (A B, B A, ...): a build that always ran second would carry whatever
    // the first one left behind (its data folder's writeback, a warmer or cooler core) in every round.
    for (let n = 0; n < rounds; n++) await round(setup, n % 2 === 0 ? sides : [...sides].reverse());
  } finally {
    undo();
    worktree.remove();
  }
  process.stdout.write(formatBaseline(ref, before, after));
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${after.runs[0].date.replace(/[:.]/g, '-')}-baseline.json`);
  writeFileSync(path, `${JSON.stringify({ schema: BASELINE_SCHEMA, ref, baseline: { sha: worktree.sha, ...before }, current: after }, null, 2)}\n`);
  process.stdout.write(`\nevery round written to ${relative(process.cwd(), path)}\n`);
}
