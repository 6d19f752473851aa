// A group's records sealed on the log's head and each wallet's: links checked where they are read, entries refused alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZERO_HASH, type AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { sealRecord } from '../../../../src/audit/record/record.js';
import { sealBatch } from '../../../../src/audit/record/seal-batch.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import { sampleEntry } from '../../../support/audit-fixtures.js';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const TS = 1_700_000_000_000;
const base = { seq: 4, hash: 'c'.repeat(64) };

describe('sealBatch', () => {
  it('links each record to the one before and to its wallet\'s, byte for byte as sealRecord seals one alone', () => {
    const heads = new Map([[A, 'a'.repeat(64)]]);
    const batch = sealBatch([sampleEntry(A, 1), sampleEntry(B, 2), sampleEntry(A, 3)], base, (wallet) => heads.get(wallet), sha256Hex, TS);
    const [first, second, third] = batch.outcome as AuditRecord[];
    assert.deepEqual([first.seq, second.seq, third.seq], [5, 6, 7]);
    assert.deepEqual([first.prev_hash, second.prev_hash, third.prev_hash], [base.hash, first.hash, second.hash]);
    assert.deepEqual([first.wallet_prev_hash, second.wallet_prev_hash, third.wallet_prev_hash], ['a'.repeat(64), ZERO_HASH, first.hash]);
    const alone = sealRecord(sampleEntry(A, 3), 7, TS, second.hash, first.hash, sha256Hex);
    assert.deepEqual(batch.sealed[2].line, alone.line);
    assert.deepEqual(batch.head, { seq: 7, hash: third.hash });
    assert.deepEqual([...batch.walletHeads], [[A, third.hash], [B, second.hash]]);
  });

  it('refuses every entry of a wallet whose stored head cannot link, and seals the others without a gap', () => {
    const heads = new Map([[A, 'A'.repeat(64)]]);
    const batch = sealBatch([sampleEntry(A, 1), sampleEntry(B, 2), sampleEntry(A, 3)], base, (wallet) => heads.get(wallet), sha256Hex, TS);
    const [first, second, third] = batch.outcome;
    assert.ok(first instanceof Error && /audit links must be 64 lower-case hex/.test(first.message));
    assert.ok(third instanceof Error && /audit links must be 64 lower-case hex/.test(third.message));
    assert.equal((second as AuditRecord).seq, 5);
    assert.equal((second as AuditRecord).prev_hash, base.hash);
    assert.deepEqual(batch.head, { seq: 5, hash: (second as AuditRecord).hash });
    assert.equal(batch.sealed.length, 1);
  });

  it('refuses the whole group on a log head that cannot link, and writes nothing', () => {
    const batch = sealBatch([sampleEntry(A, 1), sampleEntry(B, 2)], { seq: 4, hash: 'not a hash' }, () => undefined, sha256Hex, TS);
    assert.equal(batch.sealed.length, 0);
    assert.ok(batch.outcome.every((outcome) => outcome instanceof Error && /audit links must be 64 lower-case hex/.test(outcome.message)));
    assert.deepEqual(batch.head, { seq: 4, hash: 'not a hash' });
  });

  it('refuses an entry the record cannot hold alone: a ts that is not integer milliseconds', () => {
    const batch = sealBatch([{ ...sampleEntry(A, 1), ts: 1.5 }, sampleEntry(B, 2)], base, () => undefined, sha256Hex, TS);
    assert.ok(batch.outcome[0] instanceof Error && /integer milliseconds/.test(batch.outcome[0].message));
    assert.equal((batch.outcome[1] as AuditRecord).seq, 5);
  });
});
