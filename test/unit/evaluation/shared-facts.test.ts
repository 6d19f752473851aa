// The shared context a verdict's facts name is always that of the objects the verdict took, whatever verdict came before
// it: the last context is reused only for the very same frozen objects (ARCHITECTURE.md "Recorded facts").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedContext, type EngineFacts } from '../../../src/evaluation/shared-facts.js';
import { deepFreeze } from '../../../src/facts/prices/price-provider.js';
import { TIER_POLICIES } from '../../../src/risk/tiers.js';
import type { RiskInput } from '../../../src/risk/types.js';

const ENGINE: EngineFacts = Object.freeze({ scoring_table_hash: '0'.repeat(64), version: '1.4.0' });
const TSLA = deepFreeze({ contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', decimals: 18, is_native: false, symbol: 'TSLA' });
const SAFETY = deepFreeze({ flaggedDanger: false, riskFactors: [], severity: 'unchecked' as const });

function priceAt(usd: number): RiskInput['price'] {
  return { deviationBps: null, source: 'fallback_default', stale: false, usd, origin: { kind: 'default', price_usd: usd } } as RiskInput['price'];
}

function input(price: RiskInput['price'], tier: 1 | 2 = 1): RiskInput {
  return {
    trade: {} as RiskInput['trade'], policy: TIER_POLICIES[tier], entitledTier: tier, registryBySymbol: TSLA, registryByAddress: TSLA,
    price, safety: { ...SAFETY, checkedAt: null }, wallet: { dailyPnlUsd: 0, windowCount: 0, windowLimit: 10, windowSeconds: 60 }, blockedAssets: [], nowMs: 0,
  };
}

/** The shared documents a context names, as their texts. */
const texts = (context: ReturnType<typeof sharedContext>) => context.documents.map((document) => document.text);

describe('sharedContext', () => {
  it('names the price and policy each verdict took, whichever verdict came before', () => {
    const first = deepFreeze(priceAt(350.25));
    const second = deepFreeze(priceAt(351));
    const a = sharedContext(ENGINE, input(first), SAFETY);
    const b = sharedContext(ENGINE, input(second), SAFETY);
    const c = sharedContext(ENGINE, input(second, 2), SAFETY);
    assert.notEqual(b.hash, a.hash);
    assert.notEqual(c.hash, b.hash);
    assert.ok(texts(b).some((text) => text.includes('"usd":351')));
    assert.ok(texts(c).some((text) => text.includes(`"maxTradeUsd":${TIER_POLICIES[2].maxTradeUsd}`)));
    assert.deepEqual(sharedContext(ENGINE, input(first), SAFETY), a);
  });

  it('writes a price that is not frozen afresh each time, so a change to it is never hidden by the context before', () => {
    const price = priceAt(350.25) as { usd: number } & RiskInput['price'];
    const before = sharedContext(ENGINE, input(price), SAFETY);
    price.usd = 400;
    const after = sharedContext(ENGINE, input(price), SAFETY);
    assert.notEqual(after.hash, before.hash);
    assert.ok(texts(after).some((text) => text.includes('"usd":400')));
  });
});
