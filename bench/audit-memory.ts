// `npm run bench:audit-memory`: appends 10M records to a file audit log and prints RSS as the log grows.
//
// The wallets follow the mix an adversarial run saw on the service (113k wallets in
// 289k records): each record is a new wallet with probability BENCH_NEW_WALLETS,
// else a uniformly chosen earlier one, so the wallet count grows with the log the
// way it does in production. BENCH_CLIENTS loops each await their own append, like
// concurrent requests. After the run the log is reopened, to show what start-up
// costs and that the index still answers; BENCH_REBUILD=1 then deletes the index and
// reopens again, timing a rebuild from the log (what a power cut costs). The log
// lives in BENCH_DIR (default the system temp dir): 10M records take about 7 GB.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchEntry } from './audit-entry.js';
import { FileAuditLog, type FileAuditLogOptions } from '../src/audit/file/file-audit-log.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000_000);
const NEW_WALLETS = Number(process.env.BENCH_NEW_WALLETS ?? 0.39);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 256);
const FSYNC = (process.env.BENCH_FSYNC ?? 'batch') as FileAuditLogOptions['fsync'];
const STEP = Number(process.env.BENCH_STEP ?? 1_000_000);
const HIGHLIGHT = new Set([1_000_000, 5_000_000, 10_000_000]);

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** xorshift32: the same wallet sequence on every run, with no state that grows. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;


interface Mark {
  at: number;
  wallets: number;
  time: number;
  elu: ReturnType<typeof performance.eventLoopUtilization>;
}

function rss(): number {
  gc?.();
  return process.memoryUsage().rss;
}

async function dirBytes(dir: string, names: string[]): Promise<number> {
  const sizes = await Promise.all(names.map((name) => stat(join(dir, name)).then((s) => s.size, () => 0)));
  return sizes.reduce((a, b) => a + b, 0);
}

function report(mark: Mark, previous: Mark, start: number, logBytes: number, indexBytes: number): void {
  const appends = mark.at - previous.at;
  const seconds = (mark.time - previous.time) / 1000;
  const elu = performance.eventLoopUtilization(mark.elu, previous.elu);
  const usPerAppend = (elu.active * 1000) / appends;
  const flag = HIGHLIGHT.has(mark.at) ? ' <' : '';
  const now = rss();
  console.log(
    `${String(mark.at).padStart(10)} records ${String(mark.wallets).padStart(9)} wallets  RSS ${mb(now).padStart(6)} MB` +
    ` (+${mb(now - start)})  ${Math.round(appends / seconds).toString().padStart(6)} appends/s` +
    `  event loop ${usPerAppend.toFixed(1)} us/append  JS heap ${mb(process.memoryUsage().heapTotal)} MB` +
    `  log ${mb(logBytes)} MB  index ${mb(indexBytes)} MB${flag}`,
  );
}

async function appendAll(log: FileAuditLog, dir: string, start: number): Promise<void> {
  const random = rng(0x9e3779b9);
  let next = 0;
  let done = 0;
  let wallets = 0;
  let previous: Mark = { at: 0, wallets: 0, time: performance.now(), elu: performance.eventLoopUtilization() };
  const checkpoints: Array<Promise<void>> = [];
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < RECORDS) {
      const n = next++;
      const isNew = wallets === 0 || random() < NEW_WALLETS;
      const address = wallet(isNew ? wallets++ : Math.floor(random() * wallets));
      await log.append(benchEntry(address, n));
      if (++done % STEP !== 0 && done !== RECORDS) continue;
      const mark: Mark = { at: done, wallets, time: performance.now(), elu: performance.eventLoopUtilization() };
      const prior = previous;
      previous = mark;
      checkpoints.push(sizes(dir).then(([logBytes, indexBytes]) => report(mark, prior, start, logBytes, indexBytes)));
    }
  }));
  await Promise.all(checkpoints);
}

async function sizes(dir: string): Promise<[number, number]> {
  return [await dirBytes(dir, ['audit.log']), await dirBytes(dir, [join('index', 'data.mdb')])];
}

async function reopen(dir: string, what: string): Promise<void> {
  const began = performance.now();
  const log = await FileAuditLog.open(dir, { fsync: FSYNC });
  const openMs = performance.now() - began;
  const how = log.indexReport.rebuilt ? `rebuilt the index from ${log.indexReport.indexedLines} lines` : `read ${log.indexReport.indexedLines} lines`;
  const listBegan = performance.now();
  const global = await log.listGlobal(1000);
  const mine = await log.listWallet(wallet(0), 1000);
  const listMs = performance.now() - listBegan;
  console.log(
    `${what}: ${log.openReport.records} records in ${openMs.toFixed(0)} ms (${how}; RSS ${mb(rss())} MB);` +
    ` listGlobal(1000) + listWallet(1000) (${global.length} + ${mine.length} records) in ${listMs.toFixed(1)} ms`,
  );
  await log.close();
}

const dir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'audit-memory-'));
try {
  const log = await FileAuditLog.open(dir, { fsync: FSYNC });
  const start = rss();
  console.log(`${RECORDS} records, ${CLIENTS} clients, fsync ${FSYNC}, new-wallet share ${NEW_WALLETS}; ${dir}`);
  console.log(`         0 records         0 wallets  RSS ${mb(start).padStart(6)} MB (log open, empty)`);
  await appendAll(log, dir, start);
  const closeBegan = performance.now();
  await log.close();
  const { appends, writes } = log.stats;
  console.log(`closed in ${(performance.now() - closeBegan).toFixed(0)} ms; ${writes} group commits (${(appends / writes).toFixed(1)} records each)`);
  await reopen(dir, 'reopened');
  if (process.env.BENCH_REBUILD) {
    await rm(join(dir, 'index'), { recursive: true });
    await reopen(dir, 'reopened without an index');
  }
} finally {
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
}
