// The price-impact rule in the pure engine: a deny beyond the caller's tolerance, points for a large impact within it,
// an advisory when no pool was read, and a max_allowed_amount whose impact stays within the tolerance.
import { deepEqual, equal, ok } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counterfactuals } from '../../../src/risk/counterfactuals.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { quoteImpact } from '../../../src/risk/price-impact.js';
import { unitsAtLeast } from '../../../src/risk/amount-grid.js';
import { sqrtPriceAtTick } from '../../../src/risk/quote/v4-math.js';
import type { RiskInput, VenueFact, VenuePoolFact } from '../../../src/risk/types.js';
import { decodeInputs, decodeResults, encodeInputs, encodeResults } from '../../../src/risk/wire.js';
import { makeInput, type Patch } from '../../support/risk-fixtures.js';

/** Tick of about 250 USDC (6 decimals) per TSLA (18 decimals), TSLA as currency0, on the spacing-60 grid. */
const TICK = -221_100;
const WORD = Math.floor(Math.floor(TICK / 60) / 256);

/** A pool of `liquidity` over every tick read (4,000 TSLA and 1,000,000 USDC deep at 6.32e16), fee 0.3%. */
function pool(liquidity = 63_245_553_203_367_586n): VenuePoolFact {
  return {
    kind: 'pool', pool_id: `0x${'ab'.repeat(32)}`, token_is_currency0: true,
    sqrt_price_x96: sqrtPriceAtTick(TICK).toString(), tick: TICK, liquidity: liquidity.toString(), lp_fee: 3000, protocol_fee: 0,
    tick_spacing: 60, ticks: [], words: [WORD - 2, WORD + 2], block: { number: '1234', hash: `0x${'cd'.repeat(32)}` },
  };
}

function withVenue(venue: VenueFact | undefined, patch: Patch = {}): RiskInput {
  return { ...makeInput(patch), ...(venue === undefined ? {} : { venue }) };
}

describe('price impact in the engine (ARCHITECTURE.md "Price impact")', () => {
  it('an impact within max_slippage_bps and below 100 bps: allow with no reason, and the verdict carries the impact', () => {
    const result = evaluateRisk(withVenue(pool()));
    equal(result.decision, 'allow');
    deepEqual(result.reasons, []);
    equal(result.price_impact_bps, 10.01);
  });

  it('an impact above max_slippage_bps is a PRICE_IMPACT_EXCEEDS_SLIPPAGE deny, naming the block the pool was read at', () => {
    const result = evaluateRisk(withVenue(pool(), { trade: { max_slippage_bps: 5 } }));
    equal(result.decision, 'deny');
    equal(result.override, 'PRICE_IMPACT_EXCEEDS_SLIPPAGE');
    deepEqual(result.reasons, ['PRICE_IMPACT_EXCEEDS_SLIPPAGE: price impact of 10.01 bps on the venue pool at block 1234 exceeds max_slippage_bps of 5']);
    equal(result.price_impact_bps, 10.01);
  });

  it('an impact above 100 bps within the tolerance adds PRICE_IMPACT_HIGH points; above 300 bps more', () => {
    const high = evaluateRisk(withVenue(pool(), { tier: 2, trade: { amount: 40, max_slippage_bps: 300 } }));
    equal(high.decision, 'allow');
    equal(high.categories.trade, 4);
    deepEqual(high.reasons, ['PRICE_IMPACT_HIGH: price impact of 100.04 bps on the venue pool exceeds 100 bps (max_slippage_bps 300)']);
    const higher = evaluateRisk(withVenue(pool(6_324_555_320_336_758n), { tier: 2, trade: { amount: 20, max_slippage_bps: 1000 } }));
    equal(higher.categories.trade, 10);
    ok(higher.reasons.some((text) => text.startsWith('PRICE_IMPACT_HIGH: ') && text.includes('exceeds 300 bps')), higher.reasons.join('\n'));
  });

  it('a sell is quoted as exact input, a buy as exact output, each on its own side of the pool', () => {
    const sell = evaluateRisk(withVenue(pool(), { tier: 2, trade: { amount: 40, side: 'sell', max_slippage_bps: 300 } }));
    equal(sell.price_impact_bps, 98.75);
    deepEqual(sell.reasons, []);
  });

  it('a trade the pool cannot fill within the ticks read is denied, whatever the tolerance', () => {
    // 40 TSLA deep: buying 39 walks the price past the two bitmap words read above it.
    const result = evaluateRisk(withVenue(pool(632_455_532_033_675n), { tier: 2, trade: { amount: 39, max_slippage_bps: 1000 } }));
    equal(result.override, 'PRICE_IMPACT_EXCEEDS_SLIPPAGE');
    ok(result.reasons[0]!.startsWith('PRICE_IMPACT_EXCEEDS_SLIPPAGE: the venue pool at block 1234 cannot fill 39 TSLA (the swap walks past the ticks read)'), result.reasons[0]);
  });

  it('no pool read: an advisory says the impact is unknown and why, the decision is unchanged, price_impact_bps is null', () => {
    const cases = [
      ['offline', 'the service reads no chain'],
      ['no_venue', 'the registry names no venue pool for it'],
      ['no_pool', "the venue's pool for it holds no liquidity"],
    ] as const;
    for (const [why, words] of cases) {
      const result = evaluateRisk(withVenue({ kind: 'unread', why }));
      equal(result.decision, 'allow');
      equal(result.price_impact_bps, null);
      deepEqual(result.reasons, [`ADVISORY: PRICE_IMPACT_UNKNOWN: price impact of this trade is unknown: ${words}`]);
    }
  });

  it('facts recorded before the rule (no venue member) are judged as they were: no impact, no field', () => {
    const result = evaluateRisk(withVenue(undefined));
    deepEqual(result.reasons, []);
    equal('price_impact_bps' in result, false);
  });

  it('max_allowed_amount is the largest amount whose impact stays within the tolerance', () => {
    const input = withVenue(pool(), { tier: 3, trade: { amount: 100, max_slippage_bps: 50 } });
    const result = evaluateRisk(input);
    equal(result.override, 'PRICE_IMPACT_EXCEEDS_SLIPPAGE');
    const amount = counterfactuals(input, result).max_allowed_amount;
    ok(typeof amount === 'number' && amount > 0 && amount < 100, String(amount));
    const units = unitsAtLeast(amount, 18)!;
    const at = quoteImpact(pool(), 'buy', units);
    const beyond = quoteImpact(pool(), 'buy', units + 10n ** 12n);
    ok(at.kind === 'quoted' && at.bps <= 50 && beyond.kind === 'quoted' && beyond.bps > 49.9, `${JSON.stringify(at)} ${JSON.stringify(beyond)}`);
    equal(evaluateRisk({ ...input, trade: { ...input.trade, amount } }).decision, 'allow');
  });

  it('the pool state and the impact cross to the scoring threads and back unchanged', () => {
    const inputs = [withVenue(pool()), withVenue({ kind: 'unread', why: 'offline' }), withVenue(undefined)];
    deepEqual(decodeInputs(encodeInputs(inputs)), decodeInputs(encodeInputs(decodeInputs(encodeInputs(inputs)))));
    deepEqual(decodeInputs(encodeInputs(inputs)).map((input) => input.venue), inputs.map((input) => input.venue));
    const results = inputs.map(evaluateRisk);
    deepEqual(decodeResults(encodeResults(results)).map((result) => result.price_impact_bps), [10.01, null, undefined]);
    equal('price_impact_bps' in decodeResults(encodeResults(results))[2]!, false);
  });
});
