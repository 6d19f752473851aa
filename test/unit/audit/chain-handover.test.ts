// The handover record a settings change writes to each new chain: its wallet stays in its chain, and its body names the old ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { handoverEntries, handoverWallet } from '../../../src/audit/chain-handover.js';
import { partitionOf } from '../../../src/audit/record/partition.js';

const FROM = { epoch: '11111111-1111-4111-8111-111111111111', audit_store: 'redis', audit_partitions: 2 };
const NEW_EPOCH = '22222222-2222-4222-8222-222222222222';
const AT = Date.UTC(2026, 10, 27, 23, 0, 0);
const ENDS = {
  chains: [{ chain: 0, final_seq: 7, final_hash: 'a'.repeat(64) }, { chain: 1, final_seq: 3, final_hash: 'b'.repeat(64) }],
  checkpoint: { tree_size: 10, root_hash: 'c'.repeat(64), signature: 'sig' },
};

describe('handoverWallet', () => {
  it('is audit-log on one chain, and on K chains a name partitionOf puts in the chain it is written to', () => {
    assert.equal(handoverWallet(0, 1), 'audit-log');
    for (const k of [2, 3, 16]) {
      for (let chain = 0; chain < k; chain++) assert.equal(partitionOf(handoverWallet(chain, k), k), chain);
    }
  });
});

describe('handoverEntries', () => {
  it('gives each new chain one record naming every old chain end and the checkpoint', () => {
    const entries = handoverEntries(FROM, NEW_EPOCH, 3, ENDS, AT);
    assert.equal(entries.length, 3);
    assert.deepEqual(entries[1], {
      wallet: handoverWallet(1, 3),
      channel: 'audit',
      request: { chain_handover: { from: { ...FROM, ...ENDS }, to: { epoch: NEW_EPOCH, partitions: 3, chain: 1 }, at: '2026-11-27T23:00:00.000Z' } },
      decision: 'error',
      risk_score: 100,
      reasons: [`AUDIT_CHAIN_HANDOVER: this chain continues the audit chains of epoch ${FROM.epoch} (AUDIT_STORE=redis AUDIT_PARTITIONS=2): ` +
        'chain 0 ended at seq 7, chain 1 ended at seq 3'],
      tier: 0,
      price_usd: 0,
      price_source: 'none',
    });
  });

  it('says why the ends are unknown when the operator declared the old chain gone', () => {
    const [entry] = handoverEntries(FROM, NEW_EPOCH, 1, { unread: 'Redis did not answer' }, AT);
    assert.deepEqual((entry.request.chain_handover as { from: unknown }).from, { ...FROM, unread: 'Redis did not answer' });
    assert.equal(entry.reasons[0], `AUDIT_CHAIN_HANDOVER: this chain continues the audit chains of epoch ${FROM.epoch} ` +
      '(AUDIT_STORE=redis AUDIT_PARTITIONS=2): its end could not be read (Redis did not answer) and an operator declared it gone');
  });
});
