// What /status.json says of K audit chains: down only when every chain is, degraded with the chains named when some are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partitionedStatus } from '../../../../src/audit/redis/partitioned-status.js';

const OK_WATCH = { status: 'ok', epoch: 'e1', remembered: { epoch: 'e1', seq: 3, hash: 'h' } };
const NO_REPLICA = 'the primary holding the audit chain (slot 7687) has 0 of the 1 replicas AUDIT_REPLICA_ACKS asks for online';

describe('the status of partitioned audit chains', () => {
  it('is ok with every chain ok, each chain listed with its watch', () => {
    assert.deepEqual(partitionedStatus([{ watch: OK_WATCH, unready: null }, { watch: null, unready: null }]), {
      status: 'ok', chains_down: [],
      chains: [{ chain: 0, ...OK_WATCH }, { chain: 1, status: 'ok' }],
    });
  });

  it('is degraded when one chain takes no record, naming it and saying the others still do', () => {
    const states = [{ watch: OK_WATCH, unready: null }, { watch: OK_WATCH, unready: NO_REPLICA }, { watch: OK_WATCH, unready: null }];
    assert.deepEqual(partitionedStatus(states), {
      status: 'degraded',
      reason: `audit chain 1: ${NO_REPLICA}; only the wallets of chain 1 are refused (503 audit_unavailable), the other chains take records`,
      chains_down: [1],
      chains: [{ chain: 0, ...OK_WATCH }, { chain: 1, ...OK_WATCH, status: 'down', reason: NO_REPLICA }, { chain: 2, ...OK_WATCH }],
    });
  });

  it('is down when no chain takes a record, and keeps a watch\'s own reason for its chain', () => {
    const lost = { status: 'down', code: 'store_lost_state', reason: 'acknowledged records are gone', epoch: 'e1' };
    const status = partitionedStatus([{ watch: lost, unready: 'the audit chain in Redis cannot be trusted: acknowledged records are gone' }, { watch: OK_WATCH, unready: NO_REPLICA }]);
    assert.deepEqual([status.status, status.reason, status.chains_down, status.chains[0]], [
      'down', `audit chain 0: acknowledged records are gone; audit chain 1: ${NO_REPLICA}`, [0, 1], { chain: 0, ...lost },
    ]);
  });

  it('is degraded, with no chain down, when a watch cannot write its remembered head', () => {
    const unwritten = { ...OK_WATCH, status: 'degraded', reason: 'the remembered head cannot be written under DATA_DIR: ENOSPC' };
    assert.deepEqual(partitionedStatus([{ watch: OK_WATCH, unready: null }, { watch: unwritten, unready: null }]).reason, `audit chain 1: ${unwritten.reason}`);
  });
});
