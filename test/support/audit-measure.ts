// Manual measurement of the audit logs (not a test): append rates, open-scan time, memory.
// Run after a build: node --expose-gc dist/test/support/audit-measure.js [records-for-scan] [append,scan,redis]
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditLog } from '../../src/audit/record/audit-log.js';
import { FileAuditLog, type FileAuditLogOptions } from '../../src/audit/file/file-audit-log.js';
import { RedisAuditLog } from '../../src/audit/redis/redis-audit-log.js';
import { sampleEntry } from './audit-fixtures.js';
import { startRedisServer } from './redis-server.js';

const wallets = Array.from({ length: 1000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);

/** `clients` loops each awaiting its own appends, like concurrent HTTP requests. */
async function drive(logs: AuditLog[], total: number, clients: number): Promise<number> {
  let next = 0;
  const began = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    while (next < total) {
      const n = next++;
      await logs[c % logs.length].append(sampleEntry(wallets[n % wallets.length], n));
    }
  }));
  return total / ((performance.now() - began) / 1000);
}

async function appendRate(fsync: FileAuditLogOptions['fsync'], total: number, clients: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-measure-'));
  const log = await FileAuditLog.open(dir, { fsync });
  const rate = await drive([log], total, clients);
  await log.close();
  console.log(`file fsync=${fsync} clients=${clients}: ${Math.round(rate)} appends/s, ${log.stats.writes} writes (${(total / log.stats.writes).toFixed(1)} per group), ${log.stats.fsyncs} fsyncs`);
  await rm(dir, { recursive: true, force: true });
}

/** JS heap plus ArrayBuffers of this thread (the index lives on disk, kept by its own thread). */
function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 1e6;
}

async function scan(records: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-measure-'));
  const writer = await FileAuditLog.open(dir, { fsync: 'off' });
  await drive([writer], records, 256);
  await writer.close();
  const heapBefore = heapMb();
  const began = performance.now();
  const log = await FileAuditLog.open(dir, { fsync: 'off' });
  const openMs = performance.now() - began;
  const heapAfter = heapMb();
  const mb = (await stat(join(dir, 'audit.log'))).size / 1e6;
  console.log(`open of ${records} records (${mb.toFixed(0)} MB): ${openMs.toFixed(0)} ms, heap+buffers +${(heapAfter - heapBefore).toFixed(1)} MB, report ${JSON.stringify(log.openReport)}`);
  const listBegan = performance.now();
  await log.listGlobal(100);
  await log.listWallet(wallets[7], 100);
  console.log(`listGlobal(100) + listWallet(100): ${(performance.now() - listBegan).toFixed(1)} ms`);
  await log.close();
  await fullParseScan(join(dir, 'audit.log'));
  await rm(dir, { recursive: true, force: true });
}

/** For comparison: JSON.parse of every whole line, which the open scan avoids. */
async function fullParseScan(file: string): Promise<void> {
  const began = performance.now();
  const bytes = await readFile(file);
  let count = 0;
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    JSON.parse(bytes.toString('utf8', start + 65, nl));
    count++;
    start = nl + 1;
  }
  console.log(`for comparison, full JSON.parse of ${count} lines: ${(performance.now() - began).toFixed(0)} ms`);
}

async function redisRates(total: number): Promise<void> {
  const server = await startRedisServer();
  try {
    for (const instances of [1, 2]) {
      const prefix = `measure${instances}:`;
      const logs = await Promise.all(Array.from({ length: instances }, () => RedisAuditLog.connect(server.url, { prefix, now: Date.now })));
      const rate = await drive(logs, total, 256);
      const stats = logs.map((l) => `${l.stats.writes} writes/${l.stats.conflicts} conflicts`).join(', ');
      console.log(`redis instances=${instances} clients=256: ${Math.round(rate)} appends/s (${stats})`);
      await Promise.all(logs.map((l) => l.close()));
    }
  } finally {
    await server.stop();
  }
}

const scanRecords = Number(process.argv[2] ?? 200_000);
const parts = process.argv[3] ?? 'append,scan,redis';
if (parts.includes('append')) {
  for (const fsync of ['off', 'batch', 'always'] as const) {
    await appendRate(fsync, 50_000, 256);
    await appendRate(fsync, 5_000, 1);
  }
}
if (parts.includes('scan')) await scan(scanRecords);
if (parts.includes('redis')) await redisRates(50_000);
