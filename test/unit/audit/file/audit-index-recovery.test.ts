// Recovery of the audit index: a thread that died between writing entries and wallet heads is finished by the next open.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { FileAuditLog } from '../../../../src/audit/file/file-audit-log.js';
import { openIndex } from '../../../../src/audit/file/index-recovery.js';
import { INDEX_FILE_NAME } from '../../../../src/audit/file/record-index.js';
import { OVERFLOW_FILE_NAME, TABLE_FILE_NAME } from '../../../../src/audit/file/wallet-table.js';
import { WALLET_A, WALLET_B, WALLET_C, checkChain, sampleEntry } from '../../../support/audit-fixtures.js';

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** 60 records over three wallets, in a log whose index files are then removed. */
async function logWithoutIndex(): Promise<{ dir: string; records: AuditRecord[]; lines: Buffer[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-recovery-test-'));
  dirs.push(dir);
  const log = await FileAuditLog.open(dir, { fsync: 'off' });
  const records: AuditRecord[] = [];
  for (let n = 0; n < 60; n++) records.push(await log.append(sampleEntry([WALLET_A, WALLET_B, WALLET_A, WALLET_C][n % 4], n)));
  await log.close();
  for (const name of [INDEX_FILE_NAME, TABLE_FILE_NAME, OVERFLOW_FILE_NAME]) rmSync(join(dir, name));
  const bytes = readFileSync(join(dir, 'audit.log'));
  const lines: Buffer[] = [];
  for (let start = 0; start < bytes.length; start = bytes.indexOf(0x0a, start) + 1) lines.push(bytes.subarray(start, bytes.indexOf(0x0a, start) + 1));
  return { dir, records, lines };
}

/**
 * Indexes the first 40 lines, then hands over lines 41..60 and writes only `applied`
 * of their wallet heads before the thread "dies": its files are closed without the
 * clean mark, exactly as a killed process leaves them.
 */
function dieMidway(dir: string, records: AuditRecord[], lines: Buffer[], applied: number): void {
  const stat = statSync(join(dir, 'audit.log'), { bigint: true });
  const goodEnd = lines.slice(0, 40).reduce((sum, line) => sum + line.length, 0);
  const { index } = openIndex({ dir, logPath: join(dir, 'audit.log'), goodEnd, identity: { size: Number(stat.size), mtimeNs: stat.mtimeNs, ino: stat.ino }, durable: false });
  const last = new Map<string, number>();
  records.slice(0, 40).forEach((r) => last.set(r.wallet, r.seq));
  const tail = records.slice(40);
  const prevs = tail.map((r) => {
    const prev = last.get(r.wallet) ?? 0;
    last.set(r.wallet, r.seq);
    return prev;
  });
  index.arrive({ firstOffset: goodEnd, lengths: tail.map((r) => lines[r.seq - 1].length), wallets: tail.map((r) => r.wallet), hashes: tail.map((r) => r.hash), prevs });
  index.applyHeads(applied);
  index.records.close();
  index.table.close();
}

/** The index over the first 40 lines, handed lines 41..60 as batches of `size` records, none of their heads written yet. */
function indexWithTail(dir: string, records: AuditRecord[], lines: Buffer[], size: number) {
  const stat = statSync(join(dir, 'audit.log'), { bigint: true });
  const goodEnd = lines.slice(0, 40).reduce((sum, line) => sum + line.length, 0);
  const { index } = openIndex({ dir, logPath: join(dir, 'audit.log'), goodEnd, identity: { size: Number(stat.size), mtimeNs: stat.mtimeNs, ino: stat.ino }, durable: false });
  const last = new Map<string, number>();
  records.slice(0, 40).forEach((r) => last.set(r.wallet, r.seq));
  let offset = goodEnd;
  for (let from = 40; from < 60; from += size) {
    const batch = records.slice(from, from + size);
    const prevs = batch.map((r) => {
      const prev = last.get(r.wallet) ?? 0;
      last.set(r.wallet, r.seq);
      return prev;
    });
    const lengths = batch.map((r) => lines[r.seq - 1].length);
    index.arrive({ firstOffset: offset, lengths, wallets: batch.map((r) => r.wallet), hashes: batch.map((r) => r.hash), prevs });
    offset += lengths.reduce((sum, length) => sum + length, 0);
  }
  return index;
}

/** What a user sees once the log is open again: the head, newest-first listings, and chains that continue. */
async function assertRecovered(log: FileAuditLog, records: AuditRecord[]): Promise<void> {
  assert.deepEqual(await log.head(), { seq: 60, hash: records[59].hash });
  assert.deepEqual((await log.listWallet(WALLET_C, 3)).map((r) => r.seq), [60, 56, 52]);
  assert.deepEqual((await log.listWallet(WALLET_A, 100)).map((r) => r.seq), records.filter((r) => r.wallet === WALLET_A.toLowerCase()).map((r) => r.seq).reverse());
  const next = await Promise.all([WALLET_A, WALLET_B, WALLET_C].map((w, i) => log.append(sampleEntry(w, 60 + i))));
  assert.deepEqual(next.map((r) => r.wallet_prev_hash), [records[58].hash, records[57].hash, records[59].hash]);
  assert.equal(checkChain(await log.readLines(1, 100)).length, 63);
}

describe('audit index recovery', () => {
  for (const applied of [0, 1, 3]) {
    it(`finishes wallet heads a dead index thread left unwritten (${applied} of 3 written)`, async () => {
      const { dir, records, lines } = await logWithoutIndex();
      dieMidway(dir, records, lines, applied);
      const log = await FileAuditLog.open(dir, { fsync: 'always', recentWallets: 1 });
      if (existsSync('/proc/sys/kernel/random/boot_id')) assert.deepEqual(log.indexReport, { rebuilt: false, indexedLines: 0 });
      await assertRecovered(log, records);
      await log.close();
    });
  }

  it('writes each wallet\'s newest head once for all the batches waiting, then marks them all applied', async () => {
    const { dir, records, lines } = await logWithoutIndex();
    // Twenty records of three wallets in five batches: one run, three slot writes.
    const index = indexWithTail(dir, records, lines, 4);
    const marked = index.table.applied;
    assert.equal(index.applyHeads(2), true, 'two of the three wallets written, the run not done');
    assert.equal(index.table.applied, marked);
    assert.equal(index.applyHeads(1), false, 'the third wallet completes the run: nothing waits');
    assert.equal(index.table.applied, 60);
    for (const wallet of [WALLET_A, WALLET_B, WALLET_C].map((w) => w.toLowerCase())) {
      const newest = records.filter((r) => r.wallet === wallet).at(-1)!;
      assert.deepEqual(index.heads([wallet]), [[newest.seq, newest.hash]]);
    }
    index.records.close();
    index.table.close();
    const log = await FileAuditLog.open(dir, { fsync: 'always', recentWallets: 1 });
    await assertRecovered(log, records);
    await log.close();
  });

  it('rebuilds a damaged wallet table from the log instead of refusing to start', async () => {
    const { dir, records, lines } = await logWithoutIndex();
    dieMidway(dir, records, lines, 0);
    // Damage as a bad disk might: every bucket's 4 KiB page links to an overflow page that links to itself.
    const table = readFileSync(join(dir, TABLE_FILE_NAME));
    for (let at = 4096; at < table.length; at += 4096) table.writeUInt32LE(1, at + 4);
    writeFileSync(join(dir, TABLE_FILE_NAME), table);
    const loop = Buffer.alloc(4096);
    loop.writeUInt32LE(1, 4);
    writeFileSync(join(dir, OVERFLOW_FILE_NAME), loop);
    const log = await FileAuditLog.open(dir, { fsync: 'always', recentWallets: 1 });
    assert.deepEqual(log.indexReport, { rebuilt: true, indexedLines: 60 });
    await assertRecovered(log, records);
    await log.close();
  });
});
