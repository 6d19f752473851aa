// `npm run bench:audit-start -- DIR`: times `npm start` to its first 200 from /healthz on a data folder, then its first
// thousand wallet listings (docs/benchmarks.md). DIR holds a log from bench/audit-log-generate.ts.
//
// BENCH_CHECKPOINTS=N first writes DIR/audit/checkpoints.log with N signed checkpoints over the log's first records
// (roots computed as the service would, signed with DIR's own key) when the file is not there; BENCH_REBUILD=1 moves
// the index aside first (a start that builds it from the whole log); BENCH_LISTINGS sets how many listings are timed.
import { once } from 'node:events';
import { existsSync, renameSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileLines } from '../src/audit/file/file-lines.js';
import { MerkleTree } from '../src/audit/proof/merkle.js';
import { loadCheckpointSigner } from '../src/audit/proof/signing-key.js';
import { GeneratedKeys } from '../src/assembly/generated-keys.js';
import { freePort, spawnNode, startOutput, stop } from './harness.js';
import { thisService } from './service.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npm run bench:audit-start -- DIR  (BENCH_CHECKPOINTS, BENCH_REBUILD, BENCH_LISTINGS, BENCH_WALLETS)');
const CHECKPOINTS = Number(process.env.BENCH_CHECKPOINTS ?? 0);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 1000);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 10_000);
const MAIN = thisService();
const REGISTRY = fileURLToPath(new URL('../../registry/sample-registry.json', import.meta.url));
const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** One checkpoint per record for the first `count` records, written as the service writes them: a line each. */
async function writeCheckpoints(count: number): Promise<void> {
  // DIR's own key, kept there first when the folder has none, so the service started on it signs with the same.
  const keys = new GeneratedKeys(dir);
  const signer = await loadCheckpointSigner(null, keys.kept);
  await keys.write();
  const log = await open(join(dir, 'audit', 'audit.log'), 'r');
  const out = await open(join(dir, 'audit', 'checkpoints.log'), 'wx');
  const tree = new MerkleTree();
  const began = performance.now();
  let pending: string[] = [];
  for await (const { bytes } of fileLines(log, 4 << 20)) {
    const hash = bytes.toString('latin1', 0, 64);
    tree.appendRecordHash(hash);
    const size = tree.size;
    pending.push(JSON.stringify(signer.sign({ tree_size: size, root_hash: tree.root().toString('hex'), timestamp: Date.now(), last_seq: size, last_hash: hash })));
    if (pending.length === 10_000 || size === count) {
      await out.write(`${pending.join('\n')}\n`);
      pending = [];
      if (size % 100_000 === 0 || size === count) console.log(`${size} checkpoints written, ${seconds(performance.now() - began)}`);
    }
    if (size === count) break;
  }
  if (tree.size < count) throw new Error(`the log holds ${tree.size} records, fewer than ${count} checkpoints need`);
  await Promise.all([log.close(), out.datasync().then(() => out.close())]);
}

async function healthy(base: string): Promise<void> {
  for (;;) {
    const answer = await fetch(`${base}/healthz`).catch(() => null);
    if (answer?.status === 200) return;
    await answer?.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function listing(base: string, n: number): Promise<number> {
  const began = performance.now();
  const answer = await fetch(`${base}/api/v1/audit/wallet/${wallet(n % WALLETS)}?limit=100`);
  const body = await answer.json() as { records?: unknown[] };
  if (answer.status !== 200 || !body.records?.length) throw new Error(`listing ${n} answered ${answer.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - began;
}

if (CHECKPOINTS > 0 && !existsSync(join(dir, 'audit', 'checkpoints.log'))) await writeCheckpoints(CHECKPOINTS);
if (process.env.BENCH_REBUILD === '1' && existsSync(join(dir, 'audit', 'index'))) renameSync(join(dir, 'audit', 'index'), join(dir, 'audit', `index.bench-${Date.now()}`));
const port = await freePort();
const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, REGISTRY_FILE: REGISTRY, RATE_LIMITS: 'off', REQUEST_LOG: 'off' };
const began = performance.now();
const service = await spawnNode(MAIN, [], env, /listening on http/, ['--max-semi-space-size=32'], 3_600_000);
const base = `http://127.0.0.1:${port}`;
let listened = 0;
let health = 0;
let first = 0;
const times: number[] = [];
try {
  listened = performance.now() - began;
  await healthy(base);
  health = performance.now() - began;
  first = await listing(base, 0);
  for (let n = 1; n <= LISTINGS; n++) times.push(await listing(base, n));
  times.sort((a, b) => a - b);
} finally {
  // Stopped whatever failed: a service left running would hold the folder's lock against the next start.
  await stop(service);
  if (service.exitCode === null) await once(service, 'exit');
}
// The service's own account of the start: an index rebuilt, the checkpoint lines checked and any progress lines.
for (const [said] of startOutput(service).matchAll(/audit: [^"\n]*/g)) console.log(said);
console.log(`start to listening: ${seconds(listened)}; to the first 200 from /healthz: ${seconds(health)}`);
console.log(`first listing: ${first.toFixed(1)} ms; the next ${LISTINGS}: ${seconds(times.reduce((a, b) => a + b, 0))} in all, median ${times[times.length >> 1].toFixed(2)} ms, p99 ${times[Math.floor(times.length * 0.99)].toFixed(2)} ms, worst ${times[times.length - 1].toFixed(2)} ms`);
