// Prices that disagree (ARCHITECTURE.md "Prices that disagree"): the readings combined as the service does, then judged by the engine.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { OracleReading } from '../../../src/facts/prices/oracle-price.js';
import { combineReadings } from '../../../src/facts/prices/oracle-with-venue.js';
import { UNAVAILABLE } from '../../../src/facts/prices/price-provider.js';
import type { VenueReading } from '../../../src/facts/prices/venue-price.js';
import { scoreTrade } from '../../../src/risk/counterfactuals.js';
import { lowerPrice } from '../../../src/risk/derived.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { roundCents } from '../../../src/risk/format.js';
import { tierPolicy } from '../../../src/risk/tiers.js';
import type { RiskInput, Tier } from '../../../src/risk/types.js';
import { THRESHOLDS } from '../../../src/risk/weights.js';
import { makeInput } from '../../support/risk-fixtures.js';

const oracle = (usd: number, stale = false): OracleReading => ({
  usd, stale, ageSeconds: stale ? 7_200 : 60,
  origin: { kind: 'oracle', feed: '0xfeed', round_id: '1', answer: String(Math.round(usd * 1e8)), decimals: 8, updated_at: 1, block_number: 1 },
});
const venue = (usd: number): VenueReading => ({ usd, liquidity: 10n ** 20n, poolId: '0xpool' });

function judged(o: OracleReading | null, v: VenueReading | null, amount: number, tier: Tier = 1, permit = false): RiskInput {
  const base = makeInput();
  return {
    ...base,
    trade: { ...base.trade, amount },
    policy: tierPolicy(tier),
    entitledTier: tier,
    price: combineReadings(o, v) ?? UNAVAILABLE,
    ...(permit ? { permitRequested: true } : {}),
  };
}

const priceArb = fc.double({ min: 0.01, max: 5_000, noNaN: true });
const pairs = fc.record({
  oracleUsd: fc.option(priceArb, { nil: null }),
  stale: fc.boolean(),
  venueUsd: fc.option(priceArb, { nil: null }),
  amount: fc.double({ min: 1e-6, max: 10_000, noNaN: true }),
  tier: fc.constantFrom<Tier>(1, 2, 3),
  permit: fc.boolean(),
  // Close pairs too: the venue within a few percent of the oracle.
  near: fc.option(fc.double({ min: -0.05, max: 0.05, noNaN: true }), { nil: null }),
});

describe('prices that disagree', () => {
  it('never allows a trade whose notional at any price read exceeds the tier ceiling', () => {
    fc.assert(fc.property(pairs, ({ oracleUsd, stale, venueUsd, amount, tier, permit, near }) => {
      const v = near !== null && oracleUsd !== null ? oracleUsd * (1 + near) : venueUsd;
      const input = judged(oracleUsd === null ? null : oracle(oracleUsd, stale), v === null ? null : venue(v), amount, tier, permit);
      const result = evaluateRisk(input);
      if (result.decision !== 'allow') return;
      const ceiling = tierPolicy(tier).maxTradeUsd;
      for (const usd of [oracleUsd, v]) {
        if (usd !== null) ok(roundCents(amount * usd) <= ceiling, `allow at ${amount} x ${usd} over ${ceiling}: ${JSON.stringify(result.reasons)}`);
      }
    }), { numRuns: 5_000 });
  });

  it('never allows a permit request on a stale round or on sources more than 200 bps apart', () => {
    fc.assert(fc.property(pairs, ({ oracleUsd, stale, venueUsd, amount, tier }) => {
      const input = judged(oracleUsd === null ? null : oracle(oracleUsd, stale), venueUsd === null ? null : venue(venueUsd), amount, tier, true);
      if (evaluateRisk(input).decision !== 'allow') return;
      strictEqual(input.price.stale, false);
      ok(input.price.deviationBps === null || input.price.deviationBps <= THRESHOLDS.deviationBps);
    }), { numRuns: 3_000 });
  });

  it('a stale round a tenth of the pool price: quoted at the venue, denied as sources that disagree (the reported attack)', () => {
    const input = judged(oracle(21.43, true), venue(214.3), 200, 1, true);
    deepStrictEqual({ usd: input.price.usd, source: input.price.source, stale: input.price.stale, alternative: input.price.alternative }, {
      usd: 214.3, source: 'venue_v4', stale: true, alternative: { usd: 21.43, source: 'oracle' },
    });
    const result = evaluateRisk(input);
    strictEqual(result.decision, 'deny');
    strictEqual(result.override, 'PRICE_SOURCES_DISAGREE');
    strictEqual(result.calculated_notional_usd, 42_860);
    ok(result.reasons.includes('PRICE_SOURCES_DISAGREE: oracle and venue prices differ by 90,000 bps (limit 1,000 bps), so neither can price this trade'), JSON.stringify(result.reasons));
  });

  it('a fresh round at a tenth of the pool price is denied too, and small amounts as well', () => {
    for (const amount of [200, 1]) {
      const result = evaluateRisk(judged(oracle(21.43), venue(214.3), amount));
      strictEqual(result.decision, 'deny', `amount ${amount}`);
      strictEqual(result.override, 'PRICE_SOURCES_DISAGREE');
    }
  });

  it('judges the ceiling at the higher price when the sources differ within the disagreement bound', () => {
    // Oracle 100, venue 105 (500 bps): 49 units are 4,900 USD at the oracle and 5,145 USD at the venue.
    const result = evaluateRisk(judged(oracle(100), venue(105), 49));
    strictEqual(result.decision, 'deny');
    strictEqual(result.calculated_notional_usd, 5_145);
    ok(result.reasons.includes('NOTIONAL_OVER_TIER_LIMIT: 5,145 USD (judged at the venue price of 105 USD, the higher of the prices read) exceeds the Tier 1 ceiling of 5,000 USD'), JSON.stringify(result.reasons));
    ok(result.reasons.some((text) => text.startsWith('PRICE_DEVIATION: oracle and venue prices differ by 500 bps')), JSON.stringify(result.reasons));
    // The quoted price stays the oracle's: it is what the market reads, and the record keeps both.
    strictEqual(judged(oracle(100), venue(105), 49).price.usd, 100);
  });

  it('the largest allowed amount it suggests is allowed at both prices', () => {
    const input = judged(oracle(100), venue(105), 49);
    const result = scoreTrade(input);
    const amount = result.counterfactuals?.max_allowed_amount;
    ok(typeof amount === 'number' && amount > 0, JSON.stringify(result.counterfactuals));
    strictEqual(evaluateRisk({ ...input, trade: { ...input.trade, amount } }).decision, 'allow');
    ok(roundCents(amount * 105) <= 5_000);
  });

  it('refuses a permit on a stale round, a deviating pair or a default price, and signs on agreeing live prices', () => {
    const cases: [RiskInput, string | null][] = [
      [judged(oracle(100, true), null, 1, 1, true), 'PERMIT_ON_FLAGGED_PRICE: a TradePermit was asked for, but the oracle round is stale; no permit is signed on a flagged price'],
      [judged(oracle(100), venue(104), 1, 1, true), 'PERMIT_ON_FLAGGED_PRICE: a TradePermit was asked for, but oracle and venue prices differ by 400 bps; no permit is signed on a flagged price'],
      [{ ...judged(null, null, 1, 1, true), price: { usd: 100, source: 'fallback_default', stale: false, deviationBps: null } }, 'PERMIT_ON_FLAGGED_PRICE: a TradePermit was asked for, but the price is a built-in default, not a live quote; no permit is signed on a flagged price'],
      [judged(oracle(100), venue(100.5), 1, 1, true), null],
    ];
    for (const [input, expected] of cases) {
      const result = evaluateRisk(input);
      if (expected === null) {
        strictEqual(result.decision, 'allow', JSON.stringify(result.reasons));
      } else {
        strictEqual(result.decision, 'deny');
        ok(result.reasons.includes(expected), JSON.stringify(result.reasons));
      }
      // Without a permit the same facts are not denied for it.
      ok(!evaluateRisk({ ...input, permitRequested: false }).reasons.some((text) => text.startsWith('PERMIT_ON_FLAGGED_PRICE')));
    }
  });

  it('values holdings for daily loss at the lower of the two prices', () => {
    strictEqual(lowerPrice(combineReadings(oracle(100), venue(90))!), 90);
    strictEqual(lowerPrice(combineReadings(oracle(100, true), venue(110))!), 100);
    strictEqual(lowerPrice(combineReadings(oracle(100), null)!), 100);
  });

  it('keeps the old quote for one source: a live round alone, a venue alone, neither', () => {
    strictEqual(combineReadings(null, null), null);
    deepStrictEqual(combineReadings(oracle(10), null)?.alternative, null);
    strictEqual(combineReadings(null, venue(10))?.source, 'venue_v4');
    strictEqual(combineReadings(oracle(10, true), null)?.source, 'oracle');
  });
});
