// Two service instances on a real 6-node Redis Cluster, the audit log on it with K = 1 and K = 3 chains: what one
// shared log costs per verdict, by thread of both instances and in the cluster's redis-servers (docs/benchmarks.md).
import { PATHS } from '../src/catalogue/published-facts.js';
import { startRedisCluster, type RedisCluster } from '../test/support/redis-cluster.js';
import { requestAt, type LoadPlan } from './load-plan.js';
import { chooseGenerator, restVerdict, warmUp, type LoadGenerator } from './measure.js';
import { offlinePlan } from './offline-scenarios.js';
import { cpuUsPerRequest, readCpuSample, type CpuPerRequest, type CpuSample } from './proc-stat.js';
import type { Measurement } from './scenario-rows.js';
import { sampleRegistry, startService, type RunningService, type ServiceBuild } from './service.js';
import type { LoadRun } from './wrk.js';

/** The chain counts measured, one row each. */
export const CLUSTER_PARTITIONS = [1, 3] as const;
/** Both instances sign the shared checkpoints, so they share a key (any 32 bytes). */
const SIGNING_KEY = Buffer.alloc(32, 31).toString('base64');
/** The second instance's wallets start here: the two load runs never evaluate the same wallet. */
const SECOND_WALLETS = 1_000_000_000;

interface Setup {
  connections: number;
  seconds: number;
  ticksPerSecond: number;
  /** Seconds of load on both instances before the timed run (measure.ts DEFAULT_WARM_SECONDS). */
  warmSeconds: number;
}

export async function runClusterScenarios(build: ServiceBuild, setup: Setup): Promise<Measurement[]> {
  process.stderr.write('starting a Redis Cluster of 3 primaries and 3 replicas\n');
  const cluster = await startRedisCluster();
  try {
    // Each instance gets half the connections from a generator of its own, both at once.
    const generator = await chooseGenerator(Math.max(1, Math.floor(setup.connections / 2)), setup.seconds);
    const measurements: Measurement[] = [];
    for (const partitions of CLUSTER_PARTITIONS) measurements.push(await measureInstances(build, cluster, partitions, generator, setup));
    return measurements;
  } finally {
    await cluster.stop();
  }
}

async function measureInstances(build: ServiceBuild, cluster: RedisCluster, partitions: number, generator: LoadGenerator, setup: Setup): Promise<Measurement> {
  const env = {
    REGISTRY_FILE: sampleRegistry(build), REDIS_CLUSTER_NODES: cluster.seeds, AUDIT_PARTITIONS: String(partitions), AUDIT_SIGNING_KEY: SIGNING_KEY,
  };
  const label = `2 instances, Redis Cluster, K = ${partitions}`;
  process.stderr.write(`measuring ${label}\n`);
  const services: RunningService[] = [];
  try {
    for (let i = 0; i < 2; i++) services.push(await startService(build, env, 60_000));
    const plans = services.map((service, i) => ({ ...offlinePlan(`${service.base}${PATHS.analyzeFree}`, 0), walletOffset: 1 + i * SECOND_WALLETS }));
    for (const plan of plans) await checkedWarmUp(plan, label, generator);
    if (setup.warmSeconds > 0) {
      // New wallets past the warm-up requests', both instances at once, as the timed run loads them.
      const warm = await Promise.all(plans.map((plan) => generator.run({ ...plan, walletOffset: plan.walletOffset + WARM_OFFSET + WARM_REQUESTS }, setup.warmSeconds)));
      reportErrors(`${label}, warm-up`, combined(warm));
    }
    const before = readAll(services, cluster);
    const runs = await Promise.all(plans.map((plan) => generator.run(plan)));
    const after = readAll(services, cluster);
    const run = combined(runs);
    reportErrors(label, run);
    const cpu = summed(services.map((service, i) => cpuUsPerRequest(before.services[i], after.services[i], service.subject.threadKinds(), run.requests, setup.ticksPerSecond)));
    const redisUs = (ticks: number) => ((ticks / setup.ticksPerSecond) * 1e6) / Math.max(1, run.requests);
    const spent = after.redis.map((ticks, i) => ticks - before.redis[i]);
    const nodes = spent.sort((x, y) => y - x).map((ticks) => redisUs(ticks).toFixed(0)).join(' + ');
    const note = `offline registry, a new wallet each request; both instances' CPU; redis-servers ${redisUs(spent.reduce((sum, ticks) => sum + ticks, 0)).toFixed(0)} us/req (${nodes})`;
    return { id: `cluster-k${partitions}`, label, note, run, cpu };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
  }
}

/** One request checked for a verdict (a 503 names a cluster that cannot confirm appends), then the warm-up. */
async function checkedWarmUp(plan: LoadPlan, label: string, generator: LoadGenerator): Promise<void> {
  const first = requestAt(plan, 0);
  const answer = await fetch(plan.url, { method: 'POST', headers: first.headers, body: first.body });
  const wrong = restVerdict(answer.status, await answer.text());
  if (wrong) throw new Error(`${label}: ${wrong} (answer ${answer.status})`);
  await warmUp({ ...plan, walletOffset: plan.walletOffset + WARM_OFFSET }, WARM_REQUESTS, generator.name === 'wrk' ? 32 : 16);
}

/** Warm-up wallets start this far past an instance's measured ones, so those stay new. */
const WARM_OFFSET = 1_800_000_000;
const WARM_REQUESTS = 1_000;

function reportErrors(label: string, run: LoadRun): void {
  if (run.non2xx + run.socketErrors > 0) process.stderr.write(`  ${label}: ${run.non2xx} non-2xx answers and ${run.socketErrors} socket errors under load\n`);
}

/** Both instances' threads, and each redis-server's CPU ticks (the busiest is the primary of the busiest slot). */
function readAll(services: RunningService[], cluster: RedisCluster): { services: CpuSample[]; redis: number[] } {
  const samples = services.map((service) => readCpuSample(service.pid, service.subject.threadKinds().keys(), null));
  return { services: samples, redis: cluster.nodes.map((node) => readCpuSample(node.pid, [], null).process) };
}

/** Two load runs side by side as one: requests added up, the longer duration, the worse percentile of the two. */
function combined(runs: LoadRun[]): LoadRun {
  return {
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    durationSeconds: Math.max(...runs.map((run) => run.durationSeconds)),
    p50Ms: Math.max(...runs.map((run) => run.p50Ms)),
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    socketErrors: runs.reduce((sum, run) => sum + run.socketErrors, 0),
  };
}

/** Each instance's CPU per request of all requests, added: what the pair spends per verdict, by thread kind. */
function summed(parts: CpuPerRequest[]): CpuPerRequest {
  const add = (key: keyof CpuPerRequest) => (parts.every((part) => part[key] === null) ? null : parts.reduce((sum, part) => sum + (part[key] ?? 0), 0));
  return { loop: add('loop'), pool: add('pool'), index: add('index'), tree: add('tree'), others: add('others'), process: add('process'), anvil: null };
}
