// The proof side of `npm run bench:verify`: the Merkle tree over a 1M-record log, proof generation,
// incremental verification through a running service, and the append path with checkpoints on and off.
import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Checkpoint } from '../src/audit/proof/checkpoint.js';
import { MerkleTree } from '../src/audit/proof/merkle.js';
import { PATHS } from '../src/catalogue/published-facts.js';
import { tradeBody } from './trade-body.js';
import { chooseGenerator, metered, warmUp } from './measure.js';
import { startService, THIS_BUILD, type RunningService } from './service.js';
import { offlinePlan, SAMPLE_REGISTRY } from './offline-scenarios.js';
import { clockTicksPerSecond } from './proc-stat.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** Incremental verifications timed after the first. */
const INCREMENTAL_TRIES = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Every record hash of the log at `path`, in order, read from the line prefixes. */
async function recordHashes(path: string): Promise<Buffer[]> {
  const fh = await open(path, 'r');
  try {
    const bytes = await fh.readFile();
    const hashes: Buffer[] = [];
    for (let start = 0; start < bytes.length;) {
      hashes.push(Buffer.from(bytes.toString('latin1', start, start + 64), 'hex'));
      start = bytes.indexOf(0x0a, start) + 1;
    }
    return hashes;
  } finally {
    await fh.close();
  }
}

/** Tree build rate, and inclusion and consistency proof generation times at the full size. */
export async function treeFigures(logPath: string, proofs = 10_000): Promise<string[]> {
  const hashes = await recordHashes(logPath);
  const tree = new MerkleTree();
  let began = performance.now();
  for (const hash of hashes) tree.appendRecordHash(hash);
  const buildMs = performance.now() - began;
  const size = tree.size;
  began = performance.now();
  tree.root(size);
  const rootMs = performance.now() - began;
  const times = (make: (i: number) => unknown) => {
    const spent: number[] = [];
    for (let i = 0; i < proofs; i++) {
      const start = performance.now();
      make(i);
      spent.push(performance.now() - start);
    }
    return spent.sort((a, b) => a - b);
  };
  // Spread over the whole tree and over earlier checkpoint sizes, as auditors would ask.
  const inclusion = times((i) => {
    const treeSize = size - (i % 1000);
    return tree.inclusionProof((i * 7919) % treeSize, treeSize);
  });
  const consistency = times((i) => tree.consistencyProof(1 + ((i * 104_729) % (size - 1)), size));
  const row = (label: string, spent: number[]) =>
    `  ${label.padEnd(38)} p50 ${(percentile(spent, 0.5) * 1000).toFixed(1)} us, p99 ${(percentile(spent, 0.99) * 1000).toFixed(1)} us, max ${(spent[spent.length - 1] * 1000).toFixed(1)} us`;
  return [
    `Merkle tree over ${fmt(size)} records (RFC 9162 leaves and nodes)`,
    `  built in ${buildMs.toFixed(0)} ms: ${(buildMs * 1000 / size).toFixed(2)} us per append; root ${rootMs.toFixed(2)} ms`,
    row(`inclusion proof (${fmt(proofs)} proofs)`, inclusion),
    row(`consistency proof (${fmt(proofs)} proofs)`, consistency),
  ];
}

/**
 * A service over `dataDir` (its audit/audit.log already holding `records` records): waits for the
 * checkpoint at `records`, appends `added` more over HTTP, waits for the next checkpoint, then times
 * `audit:verify --since`'s work (extendCheckpoint) from the first to the second, end to end over HTTP.
 */
export async function incrementalFigures(dataDir: string, records: number, added: number): Promise<string[]> {
  const env = {
    DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, AUDIT_FSYNC: 'off', REQUEST_LOG: 'off',
    AUDIT_CHECKPOINT_RECORDS: String(added), AUDIT_CHECKPOINT_SECONDS: '0',
  };
  let began = performance.now();
  // A process of its own, as a verifier would meet it: the service's work is not on this event loop.
  const service = await startService(THIS_BUILD, env, 300_000);
  const { base } = service;
  try {
    const startMs = performance.now() - began;
    began = performance.now();
    const trusted = await checkpointAtLeast(base, records);
    const catchUpMs = performance.now() - began;
    await appendOverHttp(base, added);
    await checkpointAtLeast(base, records + added);
    // The verifier runs in a process of its own, as an auditor's does, not in this one, whose heap
    // the million-leaf tree above has grown (its slowest tries were slower here). Its first try runs the export reading and record
    // checks before V8 has optimized them, nearer what a one-off `audit:verify --since` meets
    // (which also starts Node and loads its modules); the rest are a verifier that checks again and again.
    const { records: checked, ms: spent } = await runVerifier(base, trusted, INCREMENTAL_TRIES + 1);
    const first = spent.shift()!;
    spent.sort((a, b) => a - b);
    return [
      `Incremental verification through the service (${fmt(records)} records, then ${fmt(added)} more)`,
      `  service start ${startMs.toFixed(0)} ms; proof tree read back from the log in ${catchUpMs.toFixed(0)} ms`,
      `  audit:verify --since checkpoint ${fmt(trusted.tree_size)}: ${fmt(checked)} records checked; first try ${first.toFixed(1)} ms, ` +
        `then ${INCREMENTAL_TRIES} more: best ${spent[0].toFixed(1)} ms, median ${percentile(spent, 0.5).toFixed(1)} ms, ` +
        `p90 ${percentile(spent, 0.9).toFixed(1)} ms, worst ${spent[spent.length - 1].toFixed(1)} ms (target: under 50 ms)`,
    ];
  } finally {
    await service.stop();
  }
}

/** bench/incremental-verifier.ts in a child process: each try's wall time, in order. */
function runVerifier(base: string, trusted: Checkpoint, tries: number): Promise<{ records: number; ms: number[] }> {
  const script = fileURLToPath(new URL('./incremental-verifier.js', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [script, base, String(tries)], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the incremental verifier failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as { records: number; ms: number[] });
    });
    child.stdin!.end(JSON.stringify(trusted));
  });
}

async function checkpointAtLeast(base: string, size: number): Promise<Checkpoint> {
  for (let attempt = 0; attempt < 6000; attempt++) {
    const answer = await fetch(`${base}/api/v1/audit/checkpoint`);
    const body = await answer.json() as Checkpoint;
    if (answer.status === 200 && body.tree_size >= size) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no checkpoint of ${size} records within 2 minutes`);
}

async function appendOverHttp(base: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const answer = await fetch(`${base}/api/v1/analyze/free`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: tradeBody(n),
      });
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`analyze/free answered ${answer.status}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

/** Throughput and CPU per request of the two services (checkpoints on, then off), run by run. */
interface PathRuns {
  rates: [number[], number[]];
  loop: [number[], number[]];
  whole: [number[], number[]];
  /** The proof tree thread's busy time per request, of the "on" service (guardrail_thread_busy_seconds_total). */
  tree: number[];
}

/** A service's guardrail_thread_busy_seconds_total for `thread`, from its /metrics. */
async function threadBusySeconds(base: string, thread: string): Promise<number> {
  const text = await (await fetch(`${base}${PATHS.metrics}`)).text();
  const line = new RegExp(`^guardrail_thread_busy_seconds_total\\{thread="${thread}"\\} (\\S+)$`, 'm').exec(text);
  if (!line) throw new Error(`the service's /metrics has no busy time for its ${thread} thread`);
  return Number(line[1]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Checkpoints on against off, `rounds` interleaved runs each in each of two pairs of services.
 * Two services started side by side can measure up to 10% apart for their whole lives whatever
 * their settings (two identical ones: 0.91 and 1.03), and a pair started "on" first once
 * reported 0.88 for the checkpoints: so one pair starts the "on" service first, the other the
 * "off" one, and the figure is the geometric mean of the two pairs' ratios. The tree thread's
 * busy time per request is the direct measure of what checkpoints cost.
 */
export async function appendPathFigures(rounds = 6, seconds = 5): Promise<string[]> {
  const generator = await chooseGenerator(64, seconds);
  const pairs = [await appendPathPair([0, 1], rounds, generator), await appendPathPair([1, 0], rounds, generator)];
  const ratio = (runs: PathRuns, figure: 'rates' | 'loop' | 'whole') => median(runs[figure][0]) / median(runs[figure][1]);
  const both = (figure: 'rates' | 'loop' | 'whole') => Math.sqrt(ratio(pairs[0], figure) * ratio(pairs[1], figure));
  const us = (values: number[]) => `${median(values).toFixed(1)} us`;
  const describe = (runs: PathRuns, i: number) =>
    `${runs.rates[i].map(fmt).join(', ')} req/s, median ${fmt(median(runs.rates[i]))}; CPU per request: loop ${us(runs.loop[i])}, process ${us(runs.whole[i])}`;
  return [
    `The append path: analyze/free, checkpoints on (defaults) against off, ${rounds} interleaved ${seconds} s runs each, in two pairs of services (${generator.label})`,
    ...pairs.flatMap((runs, p) => [
      `  pair ${p + 1}, "${p === 0 ? 'on' : 'off'}" started first:`,
      `    on:  ${describe(runs, 0)}`,
      `    off: ${describe(runs, 1)}`,
      `    ratio on / off ${ratio(runs, 'rates').toFixed(3)}`,
    ]),
    `  ratio on / off, both orders (geometric mean): ${both('rates').toFixed(3)} (target 0.98 or more); ` +
      `loop CPU on / off ${both('loop').toFixed(3)}, process ${both('whole').toFixed(3)}`,
    `  the proof tree thread, busy per request: ${us([...pairs[0].tree, ...pairs[1].tree])} ` +
      `(${(100 * median([...pairs[0].tree, ...pairs[1].tree]) / median([...pairs[0].whole[0], ...pairs[1].whole[0]])).toFixed(1)}% of the "on" process's CPU per request)`,
  ];
}

/** Starts the on (0) and off (1) services in `order`, warms both, and measures `rounds` interleaved runs of each. */
async function appendPathPair(order: [number, number], rounds: number, generator: Awaited<ReturnType<typeof chooseGenerator>>): Promise<PathRuns> {
  const runs: PathRuns = { rates: [[], []], loop: [[], []], whole: [[], []], tree: [] };
  const env = (i: number) => ({
    REGISTRY_FILE: SAMPLE_REGISTRY, REQUEST_LOG: 'off', ...(i === 1 ? { AUDIT_CHECKPOINT_RECORDS: '0', AUDIT_CHECKPOINT_SECONDS: '0' } : {}),
  });
  const services: RunningService[] = [];
  try {
    for (const i of order) services[i] = await startService(THIS_BUILD, env(i), 60_000);
    const ticks = clockTicksPerSecond();
    const plans = services.map((service) => offlinePlan(`${service.base}${PATHS.analyzeFree}`));
    for (const i of order) await warmUp({ ...plans[i], walletOffset: 1_800_000_000 }, 2_000, 64);
    for (let round = 0; round < rounds; round++) {
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        // Each run evaluates wallets no run before it did.
        const plan = { ...plans[i], walletOffset: 1 + (round + 1) * 10_000_000 };
        const treeBefore = i === 0 ? await threadBusySeconds(services[0].base, 'audit_tree') : 0;
        const { run, cpu } = await metered(services[i].subject, ticks, () => generator.run(plan));
        if (i === 0) runs.tree.push(((await threadBusySeconds(services[0].base, 'audit_tree')) - treeBefore) * 1e6 / run.requests);
        runs.rates[i].push(run.requests / run.durationSeconds);
        runs.loop[i].push(cpu.loop ?? NaN);
        runs.whole[i].push(cpu.process ?? NaN);
      }
    }
    return runs;
  } finally {
    await Promise.all(services.filter(Boolean).map((service) => service.stop()));
  }
}
