// The pure rules of the file log's end: torn write or damage, the refusal's words, loss markers, and the live file checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditTailDamaged, LOSS_WALLET, judgeTail, lossMarkers } from '../../../../src/audit/file/tail-evidence.js';
import { MIN_FREE_BYTES, fileMismatch, spaceProblem } from '../../../../src/audit/file/log-health.js';

describe('judgeTail', () => {
  it('calls bytes after the last good record torn only when nothing vouches for them', () => {
    assert.deepEqual(judgeTail({ lastGoodSeq: 10, indexed: 10, checkpointed: 8 }), { kind: 'torn' });
    assert.deepEqual(judgeTail({ lastGoodSeq: 0, indexed: 0, checkpointed: 0 }), { kind: 'torn' });
  });

  it('calls records the index holds damage, from the first seq after the last good record', () => {
    assert.deepEqual(judgeTail({ lastGoodSeq: 141935, indexed: 141938, checkpointed: 141000 }), {
      kind: 'damaged', firstSeq: 141936, lastSeq: 141938, vouchedBy: 'the index (audit/index) holds 141938 records',
    });
  });

  it('calls records a signed checkpoint covers damage even when the index is gone', () => {
    assert.deepEqual(judgeTail({ lastGoodSeq: 19, indexed: 0, checkpointed: 25 }), {
      kind: 'damaged', firstSeq: 20, lastSeq: 25, vouchedBy: 'a signed checkpoint covers 25 records',
    });
  });
});

describe('the refusal and the loss markers', () => {
  it('names the first damaged seq and both ways out in one message', () => {
    const judged = { kind: 'damaged' as const, firstSeq: 21, lastSeq: 25, vouchedBy: 'a signed checkpoint covers 25 records' };
    assert.equal(new AuditTailDamaged(judged, '/data/audit/audit.log').message,
      '/data/audit/audit.log: record 21 is damaged or missing, and a signed checkpoint covers 25 records, so records 21..25 were acknowledged: ' +
      'this is not a torn write, and an acknowledged seq is never issued again. Restore the file from a copy that holds seq 21..25, ' +
      'or accept losing them: start once with AUDIT_ACCEPT_LOSS=21 (each lost seq then holds a loss marker record in the chain, so verification covers the decision)');
  });

  it('writes one marker per lost seq, on a wallet no caller can send, that no reader takes for a verdict', () => {
    const markers = lossMarkers(7, 9, Date.UTC(2026, 0, 2));
    assert.equal(markers.length, 3);
    assert.deepEqual(markers[1], {
      wallet: LOSS_WALLET, channel: 'audit', decision: 'error', risk_score: 100, tier: 0, price_usd: 0, price_source: 'none',
      request: { accepted_loss: { first_seq: 7, last_seq: 9, accepted_at: '2026-01-02T00:00:00.000Z' } },
      reasons: ['AUDIT_RECORD_LOST: record 8 was acknowledged and then lost from audit.log; an operator accepted the loss (AUDIT_ACCEPT_LOSS=7)'],
    });
  });
});

describe('fileMismatch and spaceProblem', () => {
  const ours = { ino: 5n, size: 1000 };
  const still = { before: 1000, after: 1000, writing: false };
  it('accepts the file this process wrote, longer only while a write is under way', () => {
    assert.equal(fileMismatch(5n, still, ours, ours), null);
    assert.equal(fileMismatch(5n, { ...still, writing: true }, { ino: 5n, size: 1200 }, { ino: 5n, size: 1200 }), null);
  });

  it('takes the writes that completed while it looked as its own: never truncated below what was written when it began', () => {
    // The stat saw 1000 bytes; a group of 200 was written and counted before the look ended.
    const grew = { before: 1000, after: 1200, writing: true };
    assert.equal(fileMismatch(5n, grew, ours, ours), null);
    assert.equal(fileMismatch(5n, grew, { ino: 5n, size: 1200 }, { ino: 5n, size: 1200 }), null);
  });

  it('names a replaced, moved, truncated or foreign-grown file', () => {
    assert.match(fileMismatch(5n, still, null, ours) ?? '', /moved or deleted/);
    assert.match(fileMismatch(5n, still, { ino: 6n, size: 900 }, ours) ?? '', /replaced/);
    assert.match(fileMismatch(5n, { ...still, writing: true }, { ino: 5n, size: 900 }, { ino: 5n, size: 900 }) ?? '', /truncated to 900 bytes under the service, which wrote 1000/);
    assert.match(fileMismatch(5n, still, { ino: 5n, size: 1100 }, { ino: 5n, size: 1100 }) ?? '', /grew by 100 bytes/);
  });

  it('says the disk is full below room for a group of records', () => {
    assert.equal(spaceProblem(MIN_FREE_BYTES), null);
    assert.equal(spaceProblem(4096), "the audit log's disk is full (4096 bytes free)");
  });
});
