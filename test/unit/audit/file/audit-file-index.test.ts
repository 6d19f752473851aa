// FileAuditLog's on-disk index: listings, wallet chains and verification from disk, across restarts, crashes and rebuilds.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { open as openLmdb } from 'lmdb';
import type { AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { AuditVerifier } from '../../../../src/audit/verify/audit-verifier.js';
import { FileAuditLog } from '../../../../src/audit/file/file-audit-log.js';
import { LogIndex } from '../../../../src/audit/file/log-index.js';
import { sha256Buffer } from '../../../../src/audit/record/sha256.js';
import { checkChain, sampleEntry } from '../../../support/audit-fixtures.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-index-test-');

const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

/** `count` records over `wallets` wallets in a scattered order, appended 200 at a time. */
async function written(dir: string, count: number, wallets: number): Promise<AuditRecord[]> {
  const log = await FileAuditLog.open(dir, { fsync: 'off' });
  const records: AuditRecord[] = [];
  for (let n = 0; n < count; n += 200) {
    const burst = Array.from({ length: Math.min(200, count - n) }, (_, i) => log.append(sampleEntry(wallet(((n + i) * 7) % wallets), n + i)));
    records.push(...(await Promise.all(burst)));
  }
  await log.close();
  return records;
}

/** The stored records, parsed independently of src/: complete lines only. */
function stored(dir: string): Array<Record<string, unknown>> {
  const text = readFileSync(join(dir, 'audit.log'), 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1).map((line) => ({ ...JSON.parse(line.slice(65)), hash: line.slice(0, 64) }));
}

const newestFirst = (records: Array<Record<string, unknown>>, address: string, n: number) =>
  records.filter((r) => r.wallet === address).slice(-n).reverse().map((r) => r.hash);

/** What a user sees: listings newest first, every wallet chain linked, verification healthy. */
async function assertAnswers(log: FileAuditLog, records: Array<Record<string, unknown>>, wallets: number): Promise<void> {
  assert.equal(checkChain(await log.readLines(1, records.length + 10)).length, records.length);
  assert.deepEqual((await log.listGlobal(5)).map((r) => r.hash), records.slice(-5).reverse().map((r) => r.hash));
  for (let w = 0; w < wallets; w += Math.ceil(wallets / 25)) {
    const address = wallet(w);
    assert.deepEqual((await log.listWallet(address.toUpperCase().replace('0X', '0x'), 10)).map((r) => r.hash), newestFirst(records, address, 10), address);
  }
  const verifier = new AuditVerifier(log, 1);
  try {
    assert.deepEqual(await verifier.verifyGlobal(records.length), { total: records.length, tampered: 0, healthy: true, firstBrokenSeq: null, problems: [] });
    assert.equal((await verifier.verifyWallet(wallet(1), 1000)).healthy, true);
  } finally {
    await verifier.close();
  }
}

/** One more record per wallet: each must link to that wallet's newest stored record. */
async function assertChainsContinue(log: FileAuditLog, records: Array<Record<string, unknown>>, wallets: number): Promise<void> {
  for (let w = 0; w < wallets; w += Math.ceil(wallets / 25)) {
    const next = await log.append(sampleEntry(wallet(w), records.length + w));
    assert.equal(next.wallet_prev_hash, newestFirst(records, wallet(w), 1)[0], `wallet ${w}`);
  }
  checkChain(await log.readLines(1, records.length + wallets));
}

/** Runs test/support/audit-writer.js (64 clients) against `dir` and SIGKILLs it once it has acknowledged `atLeast` records. */
async function killedWriter(dir: string, wallets: number, atLeast: number): Promise<void> {
  const script = fileURLToPath(new URL('../../../support/audit-writer.js', import.meta.url));
  const child = spawn(process.execPath, [script, dir, String(wallets), '64'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const acknowledged = text.slice(0, text.lastIndexOf('\n')).split('\n').pop();
      if (Number(acknowledged) >= atLeast) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer ended with ${code ?? signal}`))));
  });
}

/** A mark of checkpoints.log's checked bytes, as a start leaves it in the index's meta. */
const CHECKED = { end: 1234, sha256: 'cd'.repeat(32), keyId: 'key-1' };

/**
 * `dir`'s index turned back into layout 1, as that layout wrote it: `lines` held 42-byte entries (offset, length, hash),
 * `wallets` one key a line (the wallet's 16-byte key and the big-endian seq), `meta` no layout; the clean-close mark
 * stays, and a mark of checked checkpoints is added.
 */
async function asLayoutOne(dir: string): Promise<void> {
  const root = openLmdb({ path: join(dir, 'index') });
  const lines = root.openDB<Buffer, number>({ name: 'lines', keyEncoding: 'uint32', encoding: 'binary' });
  const wallets = root.openDB<Buffer, Buffer>({ name: 'wallets', keyEncoding: 'binary', encoding: 'binary' });
  const meta = root.openDB<unknown, string>({ name: 'meta' });
  const text = readFileSync(join(dir, 'audit.log'));
  await root.transaction(() => {
    let offset = 0;
    for (let seq = 1; offset < text.length; seq++) {
      const length = text.indexOf(0x0a, offset) + 1 - offset;
      void lines.put(seq, Buffer.from(lines.getBinary(seq)!.subarray(0, 42)));
      const key = Buffer.alloc(20);
      sha256Buffer(JSON.parse(text.toString('utf8', offset + 65, offset + length - 1)).wallet).copy(key, 0, 0, 16);
      key.writeUInt32BE(seq, 16);
      void wallets.put(key, Buffer.alloc(0));
      offset += length;
    }
    void meta.remove('layout');
    void meta.put('checkpoints', CHECKED);
  });
  root.openDB({ name: 'heads' }).dropSync();
  await root.close();
}

/** The mark of checked checkpoints in `dir`'s index. */
async function checkedMark(dir: string): Promise<unknown> {
  const root = openLmdb({ path: join(dir, 'index') });
  try {
    return root.openDB<unknown, string>({ name: 'meta' }).get('checkpoints');
  } finally {
    await root.close();
  }
}

describe('FileAuditLog index on disk', () => {
  it('answers listings, chains and verification from disk for 3,000 wallets, and reopens without reading the log', async () => {
    const dir = await tempDir();
    const records = await written(dir, 6000, 3000);
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    assert.deepEqual(log.indexReport, { rebuilt: false, indexedLines: 0 });
    assert.deepEqual(await log.listWallet(wallet(5), 10), records.filter((r) => r.wallet === wallet(5)).reverse());
    await assertAnswers(log, stored(dir), 3000);
    await assertChainsContinue(log, stored(dir), 3000);
    await log.close();
  });

  it('under AUDIT_FSYNC=batch and off, lists a record as soon as it is acknowledged, and a clean close leaves nothing to catch up', async () => {
    for (const fsync of ['batch', 'off'] as const) {
      const dir = await tempDir();
      // A sync interval no test waits out: every read below comes before the log's first sync.
      const log = await FileAuditLog.open(dir, { fsync, batchMs: 3_600_000 });
      const records = await Promise.all(Array.from({ length: 300 }, (_, n) => log.append(sampleEntry(wallet(n % 30), n))));
      const more = await Promise.all(Array.from({ length: 30 }, (_, n) => log.append(sampleEntry(wallet(n), 300 + n))));
      assert.equal(more[0].wallet_prev_hash, records[270].hash, `${fsync}: the chain links to a record not yet synced`);
      await assertAnswers(log, stored(dir), 30);
      await log.close();
      const reopened = await FileAuditLog.open(dir, { fsync });
      assert.deepEqual(reopened.indexReport, { rebuilt: false, indexedLines: 0 }, `${fsync}: the close committed every line`);
      await assertAnswers(reopened, stored(dir), 30);
      await reopened.close();
    }
  });

  it('rebuilds a missing index from the log (a log written before the index existed) with the same answers', async () => {
    const dir = await tempDir();
    await written(dir, 600, 300);
    rmSync(join(dir, 'index'), { recursive: true });
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    assert.deepEqual(log.indexReport, { rebuilt: true, indexedLines: 600 });
    await assertAnswers(log, stored(dir), 300);
    await assertChainsContinue(log, stored(dir), 300);
    await log.close();
  });

  it('rebuilds an index of the older layout (one key a line for every wallet), saying so, with the same answers and its checkpoints still checked', async () => {
    const dir = await tempDir();
    await written(dir, 600, 300);
    await asLayoutOne(dir);
    const told: string[] = [];
    const log = await FileAuditLog.open(dir, { fsync: 'always', report: (line) => told.push(line) });
    assert.deepEqual(log.indexReport, { rebuilt: true, indexedLines: 600 });
    assert.ok(told.some((line) => /index .* is of an older layout; rebuilding it from the whole log/.test(line)), told.join('\n'));
    await assertAnswers(log, stored(dir), 300);
    await assertChainsContinue(log, stored(dir), 300);
    await log.close();
    assert.deepEqual(await checkedMark(dir), CHECKED, 'the next start does not check every checkpoint signature again');
  });

  it('refuses a log cut by hand after a clean close; once the loss is accepted it rebuilds and never reissues the cut seq', async () => {
    const dir = await tempDir();
    const records = await written(dir, 10, 2);
    const file = join(dir, 'audit.log');
    truncateSync(file, readFileSync(file).lastIndexOf(0x0a, readFileSync(file).length - 2) + 1);
    await assert.rejects(FileAuditLog.open(dir, { fsync: 'always' }), /record 10 is damaged or missing/);
    const log = await FileAuditLog.open(dir, { fsync: 'always', acceptLoss: 10 });
    assert.equal(log.indexReport.rebuilt, true);
    assert.deepEqual((await log.listWallet(records[9].wallet, 10)).map((r) => r.seq), [8, 6, 4, 2]);
    const next = await log.append(sampleEntry(records[9].wallet, 10));
    const [, marker] = await log.listGlobal(2);
    assert.deepEqual([marker.seq, marker.channel, marker.prev_hash], [10, 'audit', records[8].hash]);
    assert.deepEqual([next.seq, next.prev_hash, next.wallet_prev_hash], [11, marker.hash, records[7].hash]);
    await log.close();
  });

  it('recovers from a killed writer and a torn write by indexing only what the index had not seen', async () => {
    const dir = await tempDir();
    await killedWriter(dir, 40, 1500);
    appendFileSync(join(dir, 'audit.log'), `${'a'.repeat(64)} {"chann`);
    const records = stored(dir);
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    assert.equal(log.openReport.records, records.length);
    assert.ok(log.openReport.truncatedBytes >= 72);
    assert.equal(log.indexReport.rebuilt, false, 'a process crash loses nothing the index wrote');
    assert.ok(log.indexReport.indexedLines < records.length, 'only the tail the index had not seen is read');
    await assertAnswers(log, records, 40);
    await assertChainsContinue(log, records, 40);
    await log.close();
  });

  it('rebuilds an index that holds another log (its last line is not in this one) with the same answers', async () => {
    const [dir, elsewhere] = [await tempDir(), await tempDir()];
    await killedWriter(dir, 40, 500);
    await written(elsewhere, 100, 30);
    rmSync(join(dir, 'index'), { recursive: true });
    cpSync(join(elsewhere, 'index'), join(dir, 'index'), { recursive: true });
    const records = stored(dir);
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    assert.deepEqual(log.indexReport, { rebuilt: true, indexedLines: records.length });
    await assertAnswers(log, records, 40);
    await assertChainsContinue(log, records, 40);
    await log.close();
  });

  it('never writes a line over an indexed one: a writer that counted fewer lines is refused and the index keeps its lines', async () => {
    const dir = await tempDir();
    const line = (offset: number, hash: string) => ({ offset, length: 10, wallet: '0xa', hash: hash.repeat(32), prev: 0 });
    // Opened before the other writes: it counts no lines, so it would write its line as line 1.
    const behind = LogIndex.open(dir, false);
    const ahead = LogIndex.open(dir, false);
    try {
      ahead.add([line(0, 'ab'), line(10, 'cd')]);
      assert.throws(() => behind.add([line(0, 'ef')]), /refused line 1 after its last line/);
      const reopened = LogIndex.open(dir, false);
      try {
        assert.equal(reopened.count, 2);
        assert.deepEqual([reopened.entry(1).hash, reopened.entry(2).hash], ['ab'.repeat(32), 'cd'.repeat(32)]);
      } finally {
        await reopened.close();
      }
    } finally {
      await behind.close();
      await ahead.close();
    }
  });
});
