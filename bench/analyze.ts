// `npm run bench`: every scenario under the same load as a trivial uWS echo measured in the same run, printed as one table.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEVNET_SCENARIOS, parseBenchArgs, type BenchArgs } from './args.js';
import { runBaseline } from './baseline.js';
import { formatComparison } from './compare.js';
import { chooseGenerator, DEFAULT_WARM_SECONDS } from './measure.js';
import { clockTicksPerSecond } from './proc-stat.js';
import { readResults, writeResults, type BenchResults } from './results.js';
import { measureEcho, runResults, runScenarios, type RunSetup } from './run-scenarios.js';
import { commitLabel, loadAverage } from './run-info.js';
import { THIS_BUILD } from './service.js';
import { formatResults } from './table.js';

/** Git-ignored: each run as <date>.json, and the last one again as latest.json. */
export const RESULTS_DIR = fileURLToPath(new URL('../../bench/results', import.meta.url));

interface Settings {
  args: BenchArgs;
  previous: BenchResults | null;
  seconds: number;
  connections: number;
  warmSeconds: number;
  /** Microseconds of CPU a second echo burns per request; 0 leaves that row out. */
  burnUs: number;
}

/** Everything the run needs from the command line and the environment, or an Error before anything starts. */
function settings(): Settings {
  const whole = (name: string, fallback: number, minimum: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be a whole number of at least ${minimum}, not ${process.env[name]}`);
    return value;
  };
  const args = parseBenchArgs(process.argv.slice(2));
  if (process.env.BENCH_DEVNET === '0') for (const id of DEVNET_SCENARIOS) args.only.delete(id);
  const previous = args.compare === null ? null : readResults(args.compare);
  return { args, previous, seconds: whole('BENCH_SECONDS', 10, 1), connections: whole('BENCH_CONNECTIONS', 64, 1),
    warmSeconds: whole('BENCH_WARM_SECONDS', DEFAULT_WARM_SECONDS, 0), burnUs: whole('BENCH_BURN_US', 0, 0) };
}

/** One run of this checkout: the echo (the burning echo, the echo reading the address), the selected rows, the table, the JSON file, the comparison. */
async function runOnce(setup: Settings, run: RunSetup): Promise<void> {
  const started = { date: new Date().toISOString(), load: loadAverage() };
  const echoes = [await measureEcho(run, 0)];
  if (setup.burnUs > 0) echoes.push(await measureEcho(run, setup.burnUs));
  // What the edge row cannot go below: the echo with the one read of the request every answer's log line needs.
  if (setup.args.only.has('edge')) echoes.push(await measureEcho(run, 0, true));
  const { measurements, paid } = await runScenarios(THIS_BUILD, run);
  const results = runResults(commitLabel(), run, started, [...echoes, ...measurements], paid);
  process.stdout.write(formatResults(results));
  process.stdout.write(`\nresults written to ${relative(process.cwd(), writeResults(RESULTS_DIR, results))} (and latest.json beside it)\n`);
  if (setup.previous) process.stdout.write(`\n${formatComparison(setup.previous, setup.args.compare!, results)}`);
}

async function main(): Promise<void> {
  let setup: Settings;
  try {
    setup = settings();
  } catch (error) {
    process.stderr.write(`npm run bench: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const generator = await chooseGenerator(setup.connections, setup.seconds);
  const run: RunSetup = { only: setup.args.only, generator, connections: setup.connections, ticksPerSecond: clockTicksPerSecond(), seconds: setup.seconds, warmSeconds: setup.warmSeconds };
  if (setup.args.baseline === null) await runOnce(setup, run);
  else await runBaseline(setup.args.baseline, setup.args.runs, run, RESULTS_DIR);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
