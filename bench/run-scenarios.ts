// One run of the selected scenarios against one build of the service, with the echo they are divided by.
import { fileURLToPath } from 'node:url';
import { DEVNET_SCENARIOS, type Selectable } from './args.js';
import { runClusterScenarios } from './cluster-scenarios.js';
import { runDevnetScenarios } from './devnet-scenarios.js';
import { freePort, spawnNode, stop } from './harness.js';
import { echoes, measure, plainSubject, type LoadGenerator, type Scenario } from './measure.js';
import { offlinePlan, runOfflineScenarios } from './offline-scenarios.js';
import { RESULTS_SCHEMA, type BenchResults, type PaidResult } from './results.js';
import { loadAverage } from './run-info.js';
import { scenarioRows, type Measurement } from './scenario-rows.js';
import type { ServiceBuild } from './service.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** How every row of a run is loaded and metered. */
export interface RunSetup {
  only: Set<Selectable>;
  generator: LoadGenerator;
  connections: number;
  ticksPerSecond: number;
  seconds: number;
  /** Seconds of load before each row's measured run (BENCH_WARM_SECONDS). */
  warmSeconds: number;
}

/** One run as the table and the JSON file hold it: `measurements` start with the echo; the load average is read now, at its end. */
export function runResults(commit: string, setup: RunSetup, started: { date: string; load: number[] }, measurements: Measurement[], paid: PaidResult | null): BenchResults {
  return {
    schema: RESULTS_SCHEMA, commit, date: started.date, node: process.version,
    generator: setup.generator.name, generatorLabel: setup.generator.label, connections: setup.connections, seconds: setup.seconds, warmSeconds: setup.warmSeconds,
    clockTicksPerSecond: setup.ticksPerSecond, loadAverage: { start: started.load, end: loadAverage() },
    scenarios: scenarioRows(measurements), paid,
  };
}

const measureRow = (setup: RunSetup) => (scenario: Scenario) => measure(scenario, setup.generator, setup.ticksPerSecond, setup.connections, setup.warmSeconds);

/**
 * A trivial uWS echo (burning `burnUs` of CPU per request when asked) under the load every row gets. With
 * `readsAddress` it also reads each request's client address as the edge does: the edge row's floor.
 */
export async function measureEcho(setup: RunSetup, burnUs: number, readsAddress = false): Promise<Measurement> {
  const port = await freePort();
  const echo = await spawnNode(here('./echo-server.js'), [String(port), String(burnUs), ...(readsAddress ? ['address'] : [])], {}, /listening/);
  try {
    const plan = offlinePlan(`http://127.0.0.1:${port}/echo`);
    return await measureRow(setup)({
      ...echoRow(burnUs, readsAddress),
      plan,
      warmUp: { plan: { ...plan, walletOffset: 1_800_000_000 }, requests: 1_000 },
      subject: plainSubject(echo.pid!),
      check: echoes,
    });
  } finally {
    await stop(echo);
  }
}

function echoRow(burnUs: number, readsAddress: boolean): Pick<Scenario, 'id' | 'label' | 'note'> {
  if (burnUs > 0) return { id: 'echo-burn', label: `uWS echo burning ${burnUs} us`, note: 'an echo costing about what an evaluation does' };
  if (readsAddress) {
    return { id: 'echo-address', label: 'uWS echo reading the client address', note: 'the edge\'s floor: a getpeername and a new ArrayBuffer a request' };
  }
  return { id: 'echo', label: 'uWS echo', note: 'baseline: reads the body, sends it back' };
}

/** The selected service rows on `build` (the devnet's first, then the offline service's, then the cluster's), and the paid table when selected. */
export async function runScenarios(build: ServiceBuild, setup: RunSetup): Promise<{ measurements: Measurement[]; paid: PaidResult | null }> {
  const measurements: Measurement[] = [];
  let paid: PaidResult | null = null;
  if (DEVNET_SCENARIOS.some((id) => setup.only.has(id))) {
    const devnet = await runDevnetScenarios(build, setup.only, measureRow(setup));
    measurements.push(...devnet.measurements);
    paid = devnet.paid;
  }
  if (setup.only.has('offline') || setup.only.has('edge') || setup.only.has('mcp') || setup.only.has('long')) {
    measurements.push(...(await runOfflineScenarios(build, setup.only, setup.generator, setup.connections, measureRow(setup))));
  }
  if (setup.only.has('cluster')) measurements.push(...(await runClusterScenarios(build, setup)));
  return { measurements, paid };
}
