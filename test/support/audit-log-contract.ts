// The one behavioral contract suite every AuditLog implementation runs (file and Redis).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AuditLogClosedError, type AuditLineSource, type AuditLog, type AuditLogStats, type AuditRecord,
} from '../../src/audit/record/audit-log.js';
import { parseLine } from '../../src/audit/record/record.js';
import { WALLET_A, WALLET_B, WALLET_C, ZEROS, checkChain, sampleEntry } from './audit-fixtures.js';

export interface ContractLog extends AuditLog, AuditLineSource {
  readonly stats: AuditLogStats;
}

export interface ContractSubject {
  name: string;
  /** A fresh, empty backing store; the opener may be called again to reopen it. */
  freshStore(): Promise<() => Promise<ContractLog>>;
  /** Group commits expected for 500 appends issued in one synchronous burst. */
  writesFor500: number;
}

async function withLog<T>(open: () => Promise<ContractLog>, body: (log: ContractLog) => Promise<T>): Promise<T> {
  const log = await open();
  try {
    return await body(log);
  } finally {
    await log.close();
  }
}

async function appendInTurn(log: AuditLog, wallets: string[]): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  for (const [i, wallet] of wallets.entries()) records.push(await log.append(sampleEntry(wallet, i)));
  return records;
}

const seqs = (records: AuditRecord[]): number[] => records.map((r) => r.seq);

export function auditLogContract(subject: ContractSubject): void {
  describe(`AuditLog contract: ${subject.name}`, () => {
    it('starts empty with a zero head', async () => {
      await withLog(await subject.freshStore(), async (log) => {
        assert.deepEqual(await log.head(), { seq: 0, hash: ZEROS });
        assert.deepEqual(await log.listGlobal(10), []);
        assert.deepEqual(await log.readLines(1, 10), []);
      });
    });

    it('links the global chain and each wallet chain, storing exact hashed bytes', async () => {
      await withLog(await subject.freshStore(), async (log) => {
        const r = await appendInTurn(log, [WALLET_A, WALLET_B, WALLET_A, WALLET_C, WALLET_B]);
        assert.deepEqual(seqs(r), [1, 2, 3, 4, 5]);
        assert.deepEqual(r.map((x) => x.prev_hash), [ZEROS, r[0].hash, r[1].hash, r[2].hash, r[3].hash]);
        assert.deepEqual(r.map((x) => x.wallet_prev_hash), [ZEROS, ZEROS, r[0].hash, ZEROS, r[1].hash]);
        assert.equal(r[0].wallet, WALLET_A.toLowerCase());
        const lines = await log.readLines(1, 10);
        assert.deepEqual(checkChain(lines).map((x) => x.seq), [1, 2, 3, 4, 5]);
        assert.deepEqual(lines.map((line) => parseLine(line)), r);
        assert.deepEqual(await log.head(), { seq: 5, hash: r[4].hash });
        assert.deepEqual((await log.readLines(4, 10)).map((l) => parseLine(l).seq), [4, 5]);
      });
    });

    it('gives 500 concurrent appends seq 1..500 in call order in few group commits', async () => {
      await withLog(await subject.freshStore(), async (log) => {
        const wallets = [WALLET_A, WALLET_B, WALLET_C, '0x00000000000000000000000000000000000000d4'];
        const records = await Promise.all(Array.from({ length: 500 }, (_, i) => log.append(sampleEntry(wallets[i % 4], i))));
        assert.deepEqual(seqs(records), Array.from({ length: 500 }, (_, i) => i + 1));
        assert.equal(log.stats.appends, 500);
        assert.equal(log.stats.writes, subject.writesFor500);
        assert.equal(checkChain(await log.readLines(1, 1000)).length, 500);
      });
    });

    it('resumes the head and wallet heads after reopening', async () => {
      const open = await subject.freshStore();
      const before = await withLog(open, (log) => appendInTurn(log, [WALLET_A, WALLET_B, WALLET_A]));
      await withLog(open, async (log) => {
        assert.deepEqual(await log.head(), { seq: 3, hash: before[2].hash });
        const after = await appendInTurn(log, [WALLET_B, WALLET_A, WALLET_C]);
        assert.deepEqual(seqs(after), [4, 5, 6]);
        assert.deepEqual(after.map((x) => x.prev_hash), [before[2].hash, after[0].hash, after[1].hash]);
        assert.deepEqual(after.map((x) => x.wallet_prev_hash), [before[1].hash, before[2].hash, ZEROS]);
        assert.equal(checkChain(await log.readLines(1, 10)).length, 6);
      });
    });

    it('lists newest first, with limits, per wallet case-insensitively', async () => {
      await withLog(await subject.freshStore(), async (log) => {
        const r = await appendInTurn(log, [WALLET_A, WALLET_B, WALLET_A, WALLET_A, WALLET_B, WALLET_C]);
        assert.deepEqual(await log.listGlobal(4), [r[5], r[4], r[3], r[2]]);
        assert.deepEqual(seqs(await log.listGlobal(100)), [6, 5, 4, 3, 2, 1]);
        assert.deepEqual(await log.listGlobal(0), []);
        assert.deepEqual(await log.listWallet(WALLET_A.toUpperCase().replace('0X', '0x'), 2), [r[3], r[2]]);
        assert.deepEqual(seqs(await log.listWallet(WALLET_A.toLowerCase(), 10)), [4, 3, 1]);
        assert.deepEqual(seqs(await log.listWallet(WALLET_B, 10)), [5, 2]);
        assert.deepEqual(await log.listWallet('0x0000000000000000000000000000000000000999', 10), []);
        assert.deepEqual(await log.listWallet(WALLET_C, -1), []);
      });
    });

    it('rejects an entry RFC 8785 cannot express without taking a seq', async () => {
      await withLog(await subject.freshStore(), async (log) => {
        const bad = { ...sampleEntry(WALLET_A, 1), risk_score: Number.NaN };
        const settled = await Promise.allSettled([
          log.append(sampleEntry(WALLET_A, 0)), log.append(bad), log.append(sampleEntry(WALLET_B, 2)),
        ]);
        assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
        assert.match(String((settled[1] as PromiseRejectedResult).reason), /NaN is not allowed/);
        assert.equal((settled[2] as PromiseFulfilledResult<AuditRecord>).value.seq, 2);
        assert.equal(checkChain(await log.readLines(1, 10)).length, 2);
      });
    });

    it('close() writes queued appends, then appends reject', async () => {
      const open = await subject.freshStore();
      const log = await open();
      const pending = log.append(sampleEntry(WALLET_A, 0));
      await log.close();
      assert.equal((await pending).seq, 1);
      await assert.rejects(log.append(sampleEntry(WALLET_A, 1)), AuditLogClosedError);
      await log.close();
      await withLog(open, async (again) => assert.equal((await again.head()).seq, 1));
    });
  });
}
