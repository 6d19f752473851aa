// FileAuditLog: the shared contract plus torn tails, corruption and fsync modes.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { FileAuditLog, type FileAuditLogOptions } from '../../../../src/audit/file/file-audit-log.js';
import type { AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { WALLET_A, WALLET_B, ZEROS, checkChain, sampleEntry } from '../../../support/audit-fixtures.js';
import { auditLogContract } from '../../../support/audit-log-contract.js';
import { waitUntil } from '../../../support/wait-until.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-file-test-');

auditLogContract({
  name: 'FileAuditLog',
  writesFor500: 1,
  async freshStore() {
    const dir = await tempDir();
    return () => FileAuditLog.open(dir, { fsync: 'always' });
  },
});

/** A log in a fresh directory holding `n` records (wallets alternate A, B). */
async function seeded(n: number, options: FileAuditLogOptions = { fsync: 'off' }): Promise<{ dir: string; file: string; records: AuditRecord[] }> {
  const dir = await tempDir();
  const log = await FileAuditLog.open(dir, options);
  const records: AuditRecord[] = [];
  for (let i = 0; i < n; i++) records.push(await log.append(sampleEntry(i % 2 === 0 ? WALLET_A : WALLET_B, i)));
  await log.close();
  return { dir, file: join(dir, 'audit.log'), records };
}

async function reopenAndAppend(dir: string): Promise<{ log: FileAuditLog; next: AuditRecord }> {
  const log = await FileAuditLog.open(dir, { fsync: 'always' });
  const next = await log.append(sampleEntry(WALLET_A, 99));
  return { log, next };
}

describe('FileAuditLog torn tail and corruption', () => {
  it('cuts half a line left by a torn write and links the next append to the last good record', async () => {
    const { dir, file, records } = await seeded(3);
    const goodSize = statSync(file).size;
    appendFileSync(file, readFileSync(file).subarray(0, 40));
    const { log, next } = await reopenAndAppend(dir);
    const { scanMs: _scanMs, ...report } = log.openReport;
    assert.deepEqual(report, { records: 3, truncatedBytes: 40, reason: '40 bytes after the last newline (torn write)', suspectLines: 0 });
    assert.equal(next.seq, 4);
    assert.equal(next.prev_hash, records[2].hash);
    assert.equal(next.wallet_prev_hash, records[2].hash);
    await log.close();
    assert.equal(statSync(file).size, goodSize + (await lineLength(dir, 4)));
    assert.equal(checkChain(readLines(file)).length, 4);
  });

  it('cuts a complete garbage line at the end', async () => {
    const { dir, file, records } = await seeded(2);
    const goodSize = statSync(file).size;
    appendFileSync(file, 'garbage\n');
    const { log, next } = await reopenAndAppend(dir);
    assert.equal(log.openReport.truncatedBytes, 8);
    assert.equal(log.openReport.reason, `last line at byte ${goodSize} is bad: audit line does not start with a hash and a space`);
    assert.equal(next.prev_hash, records[1].hash);
    await log.close();
    assert.equal(checkChain(readLines(file)).length, 3);
  });

  it('refuses to cut a last record the index vouches for, and takes the loss only when an operator accepts that seq', async () => {
    const { dir, file, records } = await seeded(3);
    const bytes = readFileSync(file);
    const start = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const tampered = bytes.subarray(start).toString('latin1').replace('"price_usd":251.37', '"price_usd":251.38');
    writeFileSync(file, Buffer.concat([bytes.subarray(0, start), Buffer.from(tampered, 'latin1')]));
    const changed = readFileSync(file);
    await assert.rejects(FileAuditLog.open(dir, { fsync: 'always' }), /record 3 is damaged or missing, and the index \(audit\/index\) holds 3 records.*AUDIT_ACCEPT_LOSS=3/);
    await assert.rejects(FileAuditLog.open(dir, { fsync: 'always', acceptLoss: 2 }), /record 3 is damaged or missing/);
    assert.deepEqual(readFileSync(file), changed, 'a refused open changes nothing');
    const log = await FileAuditLog.open(dir, { fsync: 'always', acceptLoss: 3 });
    assert.deepEqual(log.openReport.acceptedLoss, { first_seq: 3, last_seq: 3 });
    const [marker] = await log.listGlobal(1);
    assert.deepEqual([marker.seq, marker.channel, marker.wallet, marker.prev_hash], [3, 'audit', 'audit-log', records[1].hash]);
    assert.match(marker.reasons[0], /^AUDIT_RECORD_LOST: record 3 was acknowledged and then lost/);
    const next = await log.append(sampleEntry(WALLET_A, 99));
    assert.deepEqual([next.seq, next.prev_hash], [4, marker.hash]);
    await log.close();
    assert.equal(checkChain(readLines(file)).length, 4);
  });

  it('keeps a corrupt middle line for verification and still finds the head', async () => {
    const { dir, file, records } = await seeded(4);
    const lines = readLines(file);
    lines[1] = Buffer.from('x'.repeat(lines[1].length));
    writeFileSync(file, Buffer.concat(lines.flatMap((line) => [line, Buffer.from('\n')])));
    const { log, next } = await reopenAndAppend(dir);
    const { scanMs: _scanMs, ...report } = log.openReport;
    assert.deepEqual(report, { records: 4, truncatedBytes: 0, reason: null, suspectLines: 1 });
    assert.deepEqual([next.seq, next.prev_hash], [5, records[3].hash]);
    assert.deepEqual((await log.listGlobal(3)).map((r) => r.seq), [5, 4, 3]);
    await assert.rejects(log.listGlobal(10), /audit\.log line 2 is corrupt/);
    await log.close();
  });

  it('cuts a torn first record, leaving an empty chain', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'audit.log'), `${'a'.repeat(64)} {"chann`);
    const { log, next } = await reopenAndAppend(dir);
    const { scanMs: _scanMs, ...report } = log.openReport;
    assert.deepEqual(report, { records: 0, truncatedBytes: 72, reason: '72 bytes after the last newline (torn write)', suspectLines: 0 });
    assert.deepEqual([next.seq, next.prev_hash], [1, ZEROS]);
    await log.close();
  });

  it('fails closed after a write error: that group and every later append reject', async () => {
    const dir = await tempDir();
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    await log.append(sampleEntry(WALLET_A, 0));
    // Simulate a dying disk by closing the descriptor underneath the log.
    await (log as unknown as { fh: FileHandle }).fh.close();
    await assert.rejects(log.append(sampleEntry(WALLET_A, 1)), /audit log unusable: I\/O error: file closed/);
    await assert.rejects(log.append(sampleEntry(WALLET_A, 2)), /audit log unusable: I\/O error/);
    assert.equal((await log.head()).seq, 1);
    await log.close();
  });

  it('refuses to open, rather than cut, when many trailing lines are bad', async () => {
    const { dir } = await seeded(2);
    appendFileSync(join(dir, 'audit.log'), 'bad\n'.repeat(9));
    await assert.rejects(FileAuditLog.open(dir, { fsync: 'off' }), /more than 8 bad lines at the end; refusing to cut/);
  });

  it('indexes wallets holding characters JSON escapes', async () => {
    const dir = await tempDir();
    const odd = 'Odd "wallet" \\ é';
    const log = await FileAuditLog.open(dir, { fsync: 'off' });
    const first = await log.append(sampleEntry(odd, 0));
    await log.append(sampleEntry(WALLET_A, 1));
    await log.close();
    const again = await FileAuditLog.open(dir, { fsync: 'off' });
    const next = await again.append(sampleEntry(odd.toUpperCase(), 2));
    assert.deepEqual([again.openReport.suspectLines, next.wallet, next.wallet_prev_hash], [0, odd.toLowerCase(), first.hash]);
    assert.deepEqual((await again.listWallet(odd, 5)).map((r) => r.seq), [3, 1]);
    await again.close();
  });

  it('indexes a record longer than the 4 MiB scan chunk', async () => {
    const dir = await tempDir();
    const log = await FileAuditLog.open(dir, { fsync: 'off' });
    const big = { ...sampleEntry(WALLET_A, 1), request: { note: 'n'.repeat(5 * 1024 * 1024) } };
    const first = await log.append(sampleEntry(WALLET_B, 0));
    const second = await log.append(big);
    await log.close();
    const { log: again, next } = await reopenAndAppend(dir);
    assert.deepEqual([again.openReport.records, next.prev_hash, next.wallet_prev_hash], [2, second.hash, second.hash]);
    assert.deepEqual((await again.listWallet(WALLET_B, 5)).map((r) => r.hash), [first.hash]);
    await again.close();
  });
});

describe('FileAuditLog fsync modes', () => {
  for (const fsync of ['always', 'batch', 'off'] as const) {
    it(`writes and reopens a chain with fsync '${fsync}'`, async () => {
      const dir = await tempDir();
      const batchMs = 10;
      const log = await FileAuditLog.open(dir, { fsync, batchMs });
      await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(sampleEntry(WALLET_A, i))));
      assert.deepEqual([log.stats.writes, log.stats.fsyncs], [1, fsync === 'always' ? 1 : 0]);
      // The batch fsync runs on a real timer inside FileAuditLog, which the test cannot move:
      // 'batch' waits for its sync itself (polled, bounded). For the others, one batch period of
      // our own, set after any timer the appends could have set, lets a wrongly scheduled sync
      // start; close() awaits a started sync, so the counts after close would show it.
      if (fsync === 'batch') await waitUntil(() => log.stats.fsyncs > 0, 'the batch fsync ran', 2_000);
      else await sleep(batchMs);
      assert.equal(log.stats.fsyncs, fsync === 'off' ? 0 : 1);
      await log.append(sampleEntry(WALLET_B, 50));
      await log.close();
      assert.equal(log.stats.fsyncs, { always: 2, batch: 2, off: 0 }[fsync]);
      assert.equal(checkChain(readLines(join(dir, 'audit.log'))).length, 51);
    });
  }

  it('rejects an unknown fsync mode', async () => {
    await assert.rejects(FileAuditLog.open(await tempDir(), { fsync: 'never' as 'off' }), /unknown fsync mode never/);
  });
});

function readLines(file: string): Buffer[] {
  const bytes = readFileSync(file);
  const lines: Buffer[] = [];
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    lines.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  return lines;
}

async function lineLength(dir: string, seq: number): Promise<number> {
  return readLines(join(dir, 'audit.log'))[seq - 1].length + 1;
}
