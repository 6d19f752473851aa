// `npm run bench`: every scenario under the same load as a trivial uWS echo measured in the same run, printed as one table.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEVNET_SCENARIOS, parseBenchArgs, type BenchArgs } from './args.js';
import { formatComparison } from './compare.js';
import { runDevnetScenarios } from './devnet-scenarios.js';
import { spawnNode, stop, freePort } from './harness.js';
import { chooseGenerator, echoes, measure, type LoadGenerator, type Scenario } from './measure.js';
import { offlinePlan, runOfflineScenarios } from './offline-scenarios.js';
import { clockTicksPerSecond } from './proc-stat.js';
import { readResults, RESULTS_SCHEMA, writeResults, type BenchResults, type PaidResult } from './results.js';
import { commitLabel, loadAverage } from './run-info.js';
import { scenarioRows, type Measurement } from './scenario-rows.js';
import { formatResults } from './table.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
/** Git-ignored: each run as <date>.json, and the last one again as latest.json. */
const RESULTS_DIR = here('../../bench/results');

interface Settings {
  args: BenchArgs;
  previous: BenchResults | null;
  seconds: number;
  connections: number;
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
  return { args, previous, seconds: whole('BENCH_SECONDS', 10, 1), connections: whole('BENCH_CONNECTIONS', 64, 1), burnUs: whole('BENCH_BURN_US', 0, 0) };
}

/** A trivial uWS echo (burning `burnUs` of CPU per request when asked) under the load every row gets. */
async function measureEcho(burnUs: number, measureRow: (scenario: Scenario) => Promise<Measurement>): Promise<Measurement> {
  const port = await freePort();
  const echo = await spawnNode(here('./echo-server.js'), [String(port), String(burnUs)], {}, /listening/);
  try {
    const plan = offlinePlan(`http://127.0.0.1:${port}/echo`);
    return await measureRow({
      id: burnUs > 0 ? 'echo-burn' : 'echo',
      label: burnUs > 0 ? `uWS echo burning ${burnUs} us` : 'uWS echo',
      note: burnUs > 0 ? 'an echo costing about what an evaluation does' : 'baseline: reads the body, sends it back',
      plan,
      warmUp: { plan: { ...plan, walletOffset: 1_800_000_000 }, requests: 1_000 },
      pid: echo.pid!,
      check: echoes,
    });
  } finally {
    await stop(echo);
  }
}

async function run(setup: Settings, generator: LoadGenerator, ticksPerSecond: number): Promise<{ measurements: Measurement[]; paid: PaidResult | null }> {
  const measureRow = (scenario: Scenario) => measure(scenario, generator, ticksPerSecond, setup.connections);
  const measurements = [await measureEcho(0, measureRow)];
  if (setup.burnUs > 0) measurements.push(await measureEcho(setup.burnUs, measureRow));
  let paid: PaidResult | null = null;
  if (DEVNET_SCENARIOS.some((id) => setup.args.only.has(id))) {
    const devnet = await runDevnetScenarios(setup.args.only, measureRow);
    measurements.push(...devnet.measurements);
    paid = devnet.paid;
  }
  if (setup.args.only.has('offline') || setup.args.only.has('mcp')) {
    measurements.push(...(await runOfflineScenarios(setup.args.only, generator, setup.connections, measureRow)));
  }
  return { measurements, paid };
}

async function main(): Promise<void> {
  let setup: Settings;
  try {
    setup = settings();
  } catch (error) {
    process.stderr.write(`npm run bench: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const [date, start, commit, ticksPerSecond] = [new Date().toISOString(), loadAverage(), commitLabel(), clockTicksPerSecond()];
  const generator = await chooseGenerator(setup.connections, setup.seconds);
  const { measurements, paid } = await run(setup, generator, ticksPerSecond);
  const results: BenchResults = {
    schema: RESULTS_SCHEMA, commit, date, node: process.version,
    generator: generator.name, generatorLabel: generator.label, connections: setup.connections, seconds: setup.seconds,
    clockTicksPerSecond: ticksPerSecond, loadAverage: { start, end: loadAverage() },
    scenarios: scenarioRows(measurements), paid,
  };
  process.stdout.write(formatResults(results));
  process.stdout.write(`\nresults written to ${relative(process.cwd(), writeResults(RESULTS_DIR, results))} (and latest.json beside it)\n`);
  if (setup.previous) process.stdout.write(`\n${formatComparison(setup.previous, setup.args.compare!, results)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
