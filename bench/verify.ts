// `npm run bench:verify`: builds a 1M-record audit log, verifies it end to end, and compares with raw hashing rates.
//
// The raw rates are measured in the same run, on the same number of threads, over
// the same record bytes already in each thread's memory: hash-wasm (what the
// verification pool uses) and node:crypto (OpenSSL) for comparison; the pool is
// also run with node:crypto to show what the SHA-256 primitive costs. Each figure
// is the best of BENCH_ROUNDS interleaved runs, so a neighbour's burst of CPU does
// not decide it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { AuditHead } from '../src/audit/record/audit-log.js';
import { benchEntry } from './audit-entry.js';
import { ZERO_HASH } from '../src/audit/record/audit-log.js';
import { DEFAULT_CHUNK_BYTES, SpareBlocks, fileChunks } from '../src/audit/verify/chunk-sources.js';
import { sealRecord } from '../src/audit/record/record.js';
import { createSha256Digest, opensslOneShot, opensslSha256Digest, sha256Hex } from '../src/audit/record/sha256.js';
import { verifyChunks } from '../src/audit/verify/verify-chunks.js';
import { appendPathFigures, incrementalFigures, treeFigures } from './audit-proofs.js';
import { VerifyPool, type Hasher } from '../src/audit/verify/verify-pool.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const THREADS = Number(process.env.BENCH_THREADS ?? availableParallelism());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WALLETS = 10_000;

const NODE_HASH = opensslOneShot ? 'hash()' : 'createHash()';
const wallet = (n: number) => `0x${(n % WALLETS).toString(16).padStart(40, '0')}`;


/** Seals RECORDS records into DIR/audit.log, as the service would, and returns its head. */
async function buildLog(path: string): Promise<AuditHead> {
  const fh = await open(path, 'w');
  const walletHeads = new Map<string, string>();
  let head: AuditHead = { seq: 0, hash: ZERO_HASH };
  let batch: Buffer[] = [];
  for (let n = 1; n <= RECORDS; n++) {
    const e = benchEntry(wallet(n), n);
    const { record, line } = sealRecord(e, n, 1_767_225_600_000 + n, head.hash, walletHeads.get(e.wallet) ?? ZERO_HASH, sha256Hex);
    walletHeads.set(e.wallet, record.hash);
    head = { seq: n, hash: record.hash };
    batch.push(line);
    if (batch.length === 10_000 || n === RECORDS) {
      await fh.write(Buffer.concat(batch));
      batch = [];
    }
  }
  await fh.close();
  return head;
}

/**
 * Records/s of hashing every record body on THREADS threads: the chunks already in
 * each thread's memory and the line ends already found, so only the hash calls
 * (a view of the body, init, update, digest) are timed.
 */
async function rawRate(path: string, hasher: Hasher): Promise<number> {
  const shares = Array.from({ length: THREADS }, () => ({ buffers: [] as ArrayBuffer[], lengths: [] as number[] }));
  let i = 0;
  for await (const chunk of fileChunks(path)) {
    shares[i % THREADS].buffers.push(chunk.buffer);
    shares[i++ % THREADS].lengths.push(chunk.length);
  }
  const workers = shares.map((share) =>
    new Worker(new URL(import.meta.url), { workerData: { ...share, hasher }, transferList: share.buffers }));
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const done = workers.map((w) => new Promise<{ records: number }>((resolve) => w.once('message', resolve)));
  const began = performance.now();
  workers.forEach((w) => w.postMessage('go'));
  const results = await Promise.all(done);
  const seconds = (performance.now() - began) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  return results.reduce((sum, r) => sum + r.records, 0) / seconds;
}

/** Worker side of rawRate: find the bodies first, then hash them when told to go. */
async function hashWorker(): Promise<void> {
  const { buffers, lengths, hasher } = workerData as { buffers: ArrayBuffer[]; lengths: number[]; hasher: Hasher };
  const wasm = await createSha256Digest();
  const digest = hasher === 'hash-wasm' ? wasm : opensslSha256Digest;
  const chunks = buffers.map((buffer, n) => new Uint8Array(buffer, 0, lengths[n]));
  const bounds = chunks.map((bytes) => {
    const text = Buffer.from(bytes.buffer, 0, bytes.length);
    const ends: number[] = [];
    for (let start = 0; start < bytes.length;) {
      const end = text.indexOf(0x0a, start);
      ends.push(start + 65, end);
      start = end + 1;
    }
    return Int32Array.from(ends);
  });
  const hashAll = (limit: number) => {
    let records = 0;
    for (let n = 0; n < chunks.length && records < limit; n++) {
      const ends = bounds[n];
      for (let j = 0; j < ends.length; j += 2) digest(chunks[n].subarray(ends[j], ends[j + 1]));
      records += ends.length / 2;
    }
    return records;
  };
  // Warm up first, as the pool's long-lived threads are: WebAssembly starts on its baseline
  // compiler and moves to optimized code in the background once hot.
  hashAll(50_000);
  parentPort!.postMessage('ready');
  await new Promise((resolve) => parentPort!.once('message', resolve));
  parentPort!.postMessage({ records: hashAll(Number.POSITIVE_INFINITY) });
}

async function endToEnd(pool: VerifyPool, path: string, head: AuditHead): Promise<{ rate: number; seconds: number }> {
  const began = performance.now();
  const blocks = new SpareBlocks();
  const report = await verifyChunks(pool, fileChunks(path, DEFAULT_CHUNK_BYTES, blocks), {
    field: 'prev_hash', head, recycle: (buffer) => blocks.give(buffer),
  });
  const seconds = (performance.now() - began) / 1000;
  if (!report.healthy || report.total !== RECORDS) throw new Error(`bench log did not verify: ${JSON.stringify(report).slice(0, 500)}`);
  return { rate: RECORDS / seconds, seconds };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-verify-'));
  // The layout of a DATA_DIR, so the proof figures can start a service on the same log.
  mkdirSync(join(dir, 'audit'));
  const path = join(dir, 'audit', 'audit.log');
  try {
    let began = performance.now();
    const head = await buildLog(path);
    const buildSeconds = (performance.now() - began) / 1000;
    const { size } = await stat(path);
    const pools = { wasm: new VerifyPool(THREADS, 'hash-wasm'), node: new VerifyPool(THREADS, 'node:crypto') };
    began = performance.now();
    await pools.wasm.warm();
    const warmMs = performance.now() - began;
    await pools.node.warm();
    const raw = { wasm: 0, node: 0 };
    const none = { rate: 0, seconds: Number.POSITIVE_INFINITY };
    const verified = { wasm: none, node: none };
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, so a slow spell on the machine hits every figure alike.
      raw.wasm = Math.max(raw.wasm, await rawRate(path, 'hash-wasm'));
      raw.node = Math.max(raw.node, await rawRate(path, 'node:crypto'));
      for (const hasher of ['wasm', 'node'] as const) {
        const run = await endToEnd(pools[hasher], path, head);
        if (run.rate > verified[hasher].rate) verified[hasher] = run;
      }
    }
    await Promise.all([pools.wasm.close(), pools.node.close()]);
    const took = (v: { rate: number; seconds: number }) => `${fmt(v.rate)} records/s, ${fmt(RECORDS)} records in ${v.seconds.toFixed(2)} s`;
    console.log([
      `verify bench: ${fmt(RECORDS)} records, ${Math.round(size / RECORDS)} bytes per stored line, ` +
        `${THREADS} threads on ${availableParallelism()} cores, best of ${ROUNDS}`,
      `  log built in ${buildSeconds.toFixed(1)} s; pool start ${warmMs.toFixed(0)} ms (not in the figures below)`,
      `  raw hash-wasm:                          ${fmt(raw.wasm)} records/s`,
      `  raw node:crypto ${NODE_HASH.padEnd(13)}          ${fmt(raw.node)} records/s`,
      `  end-to-end verification (hash-wasm):    ${took(verified.wasm)}`,
      `    ratio to raw hash-wasm:               ${(verified.wasm.rate / raw.wasm).toFixed(2)} (target 0.70 or more)`,
      `    ratio to raw node:crypto:             ${(verified.wasm.rate / raw.node).toFixed(2)}`,
      `  end-to-end verification (node:crypto):  ${took(verified.node)}`,
      `    ratio to raw node:crypto:             ${(verified.node.rate / raw.node).toFixed(2)}`,
    ].join('\n'));
    if (process.env.BENCH_PROOFS !== '0') {
      console.log((await treeFigures(path)).join('\n'));
      console.log((await incrementalFigures(dir, RECORDS, 10_000)).join('\n'));
      console.log((await appendPathFigures()).join('\n'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) await main();
else await hashWorker();
