// The Redis backend keeps a shared facts document once, as one field of its facts hash, hands it back with the facts
// that name it, and a shared document changed or lost in Redis fails every record naming it (ARCHITECTURE.md "Recorded facts");
// so does a format 3 record's outcome document, kept in the same hash (ARCHITECTURE.md "Audit record").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisAuditLog } from '../../../../src/audit/redis/redis-audit-log.js';
import { factsProblem } from '../../../../src/audit/verify/facts-check.js';
import { sealFacts } from '../../../../src/evaluation/recorded-facts.js';
import { deepFreeze } from '../../../../src/facts/prices/price-provider.js';
import { TIER_POLICIES } from '../../../../src/risk/tiers.js';
import type { RiskInput } from '../../../../src/risk/types.js';
import { WALLET_A, WALLET_B, WALLET_C, sampleEntry } from '../../../support/audit-fixtures.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';

let server: RedisServer;
let redis: Redis;
before(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
after(async () => {
  redis.disconnect();
  await server.stop();
});

const ASSET = deepFreeze({ symbol: 'TSLA', contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', is_native: false, decimals: 18 });
const PRICE = deepFreeze({ usd: 251.37, source: 'fallback_default', stale: false, deviationBps: null, origin: { kind: 'default', price_usd: 251.37 } } as RiskInput['price']);
const SAFETY = deepFreeze({ severity: 'unchecked' as const, flaggedDanger: false, riskFactors: [], checkedAt: null });

/** The input of one evaluation: the block's shared facts, a trade and a wallet of its own. */
function input(wallet: string, n: number): RiskInput {
  return {
    trade: { wallet, asset: 'TSLA', contract_address: ASSET.contract_address, side: 'buy', amount: n, max_slippage_bps: 100 } as RiskInput['trade'],
    policy: TIER_POLICIES[1], entitledTier: 1, registryBySymbol: ASSET, registryByAddress: ASSET, price: PRICE, safety: SAFETY,
    wallet: { windowCount: n, windowLimit: 10, windowSeconds: 60, dailyPnlUsd: 0 }, blockedAssets: [], nowMs: 1_767_623_400_000 + n,
  };
}

describe('shared facts on Redis', () => {
  it('are kept once, read back with the facts that name them, and a changed or lost one fails every record naming it', async () => {
    const prefix = 'tg:shared:';
    const log = await RedisAuditLog.connect(server.url, { prefix, now: Date.now });
    try {
      const wallets = [WALLET_A, WALLET_B, WALLET_C];
      // Two group commits: the second sends the shared documents again, Redis keeps one field each.
      for (const round of [0, 1]) {
        await Promise.all(wallets.map((wallet, i) => {
          const entry = sampleEntry(wallet, round * 3 + i);
          return log.append({ ...entry, facts: sealFacts(input(wallet, round * 3 + i), { basis: 'channel', channel: 'rest' }, entry.request) });
        }));
      }
      assert.equal(await redis.hlen(`${prefix}facts`), 6 + 6 + 2, 'six records\' own facts, six shared documents and the two outcomes the records name (format 3)');
      const lines = await log.readLines(1, 6);
      const facts = await log.readFacts(1, 6);
      assert.deepEqual(facts.map((line) => JSON.parse(line.text).kind ?? `own ${line.seq}`),
        ['engine', 'policy', 'price', 'registry', 'safety', 'context', 'outcome', 'own 1', 'outcome', 'own 2', 'own 3', 'own 4', 'own 5', 'own 6']);
      const problems = async () => {
        const found = await log.readFacts(1, 6);
        const shared = new Map(found.map((line) => [line.hash, line.text]));
        return lines.map((line, i) => factsProblem(line, found.find((f) => f.seq === i + 1 && !f.text.includes('"kind"')) ?? null, shared));
      };
      assert.deepEqual(await problems(), [null, null, null, null, null, null]);
      const price = facts.find((line) => line.text.includes('"kind":"price"'))!;
      await redis.hset(`${prefix}facts`, price.hash, price.text.replace('251.37', '251.38'));
      assert.deepEqual(await problems(), Array(6).fill('facts_mismatch'));
      await redis.hdel(`${prefix}facts`, price.hash);
      assert.deepEqual(await problems(), Array(6).fill('facts_missing'));
      await redis.hset(`${prefix}facts`, price.hash, price.text);
      assert.deepEqual(await problems(), [null, null, null, null, null, null]);
      // The outcome the denials share (records 1 and 4, format 3): changed, then lost, then restored.
      const denied = facts.find((line) => line.text.includes('"kind":"outcome"') && line.text.includes('NOTIONAL_OVER_TIER_LIMIT'))!;
      await redis.hset(`${prefix}facts`, denied.hash, denied.text.replace('251.37', '251.38'));
      assert.deepEqual(await problems(), ['outcome_mismatch', null, null, 'outcome_mismatch', null, null]);
      await redis.hdel(`${prefix}facts`, denied.hash);
      assert.deepEqual(await problems(), ['outcome_missing', null, null, 'outcome_missing', null, null]);
      await redis.hset(`${prefix}facts`, denied.hash, denied.text);
      assert.deepEqual(await problems(), [null, null, null, null, null, null]);
    } finally {
      await log.close();
    }
  });
});
