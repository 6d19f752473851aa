// Key names: one hash tag per key for Redis Cluster, and the pre-cluster names on a single node.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  dangerKey, idempotencyKey, ipWindowKey, owedPaymentKey, paymentKey, pendingSignInKey, pnlSnapshotKey, policyKey,
  provenWindowKey, revokedTokenKey, safetyKey, untagged, walletWindowKey,
} from '../../../src/store/keys.js';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const wallet = WALLET.toLowerCase();
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const token = TOKEN.toLowerCase();

/** The tag Redis Cluster hashes: the text between the first `{` and the next `}`. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  return key.slice(open + 1, key.indexOf('}', open + 1));
}

describe('store keys', () => {
  it('tags every key of a wallet with the wallet, so its windows, policy and P&L share a slot', () => {
    const keys = [walletWindowKey(WALLET), provenWindowKey(WALLET), policyKey(WALLET), pnlSnapshotKey(WALLET, '2026-01-05'), pendingSignInKey(WALLET)];
    assert.deepEqual(keys.map(hashTag), keys.map(() => wallet));
  });

  it('keeps, on a single node, exactly the names keys had before cluster tags', () => {
    assert.deepEqual(
      [
        walletWindowKey(WALLET), provenWindowKey(WALLET), policyKey(WALLET), pnlSnapshotKey(WALLET, '2026-01-05'), pendingSignInKey(WALLET),
        safetyKey(TOKEN), dangerKey(TOKEN), idempotencyKey(`rest:${wallet}`, 'r-1'), paymentKey(WALLET, '0xAB'), owedPaymentKey(WALLET, '0xAB'),
        revokedTokenKey('5d0c'), ipWindowKey('free', '127.0.0.1'),
      ].map(untagged),
      [
        `rl:wallet:${wallet}`, `rl:wallet:${wallet}:proven`, `policy:${wallet}`, `pnl:${wallet}:2026-01-05`, `siwe:${wallet}`,
        `safety:${token}`, `danger:${token}`, `idem:rest:${wallet}:r-1`, `x402:${wallet}:0xab`, `x402owed:${wallet}:0xab`,
        'revoked:5d0c', 'rl:ip:free:127.0.0.1',
      ],
    );
  });

  it('leaves braces a client chose alone: only the tag the key names is removed', () => {
    const key = idempotencyKey(`rest:${wallet}`, 'order-{7}');
    assert.equal(hashTag(key), `rest:${wallet}`);
    assert.equal(untagged(key), `idem:rest:${wallet}:order-{7}`);
    assert.notEqual(untagged(key), untagged(idempotencyKey(`rest:${wallet}`, 'order-7')));
  });
});
