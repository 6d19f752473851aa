// Counterfactuals against the engine itself: the amount, tier, window and market open that turn a verdict into allow.
import { deepStrictEqual, equal, notEqual, ok, strictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { lastUnitsReadAs, unitsAtLeast, unitsToAmount } from '../../../src/risk/amount-grid.js';
import { counterfactuals, scoreTrade } from '../../../src/risk/counterfactuals.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { TIER_THRESHOLDS } from '../../../src/risk/tiers.js';
import type { RiskInput } from '../../../src/risk/types.js';
import { decodeResults, encodeResults } from '../../../src/risk/wire.js';
import { riskInput } from '../../support/risk-arbitraries.js';
import { makeInput, SATURDAY_MS, TUESDAY_OPEN_MS } from '../../support/risk-fixtures.js';

const RUNS = { numRuns: 400 };
const decision = (input: RiskInput, amount: number) => evaluateRisk({ ...input, trade: { ...input.trade, amount } }).decision;
const decimalsOf = (input: RiskInput) => input.registryBySymbol?.decimals ?? input.registryByAddress!.decimals;

/** Inputs the edge can produce: amounts within the schema's bound, decimals up to 18. */
const servedInput = fc
  .tuple(riskInput, fc.double({ min: 1e-6, max: 1e6, noNaN: true }), fc.constantFrom(0, 2, 6, 8, 18))
  .map(([input, amount, decimals]) => {
    const bySymbol = input.registryBySymbol === null ? null : { ...input.registryBySymbol, decimals };
    return { ...input, registryBySymbol: bySymbol, trade: { ...input.trade, amount } };
  });

describe('max_allowed_amount', () => {
  it('a TSLA buy over the Tier 1 ceiling: allowed at the answer, not one base unit above it', () => {
    const input = makeInput({ trade: { amount: 30 } });
    const got = counterfactuals(input, evaluateRisk(input));
    // 5,000 USD at 250 USD is exactly 20 TSLA; near the ceiling costs 2 points, still allow.
    equal(got.max_allowed_amount, 20.000019999999996);
    equal(decision(input, got.max_allowed_amount!), 'allow');
    equal(decision(input, 20.00002), 'deny');
  });

  it('on the property: the engine allows the answer and refuses the next amount the service can tell apart', () => {
    fc.assert(fc.property(servedInput, (input) => {
      const result = evaluateRisk(input);
      const max = counterfactuals(input, result).max_allowed_amount;
      if (result.decision === 'allow' || max === undefined || max === null) return;
      const decimals = decimalsOf(input);
      strictEqual(decision(input, max), 'allow');
      const units = unitsAtLeast(max, decimals)!;
      strictEqual(unitsToAmount(units, decimals), max, 'the answer lies on the base-unit grid');
      // One base unit more: refused, or the same JSON number (a double cannot hold every 18-decimal amount).
      const next = unitsToAmount(units + 1n, decimals);
      if (next !== max) notEqual(decision(input, next), 'allow');
      strictEqual(decision(input, unitsToAmount(lastUnitsReadAs(units, decimals) + 1n, decimals)) === 'allow', false);
    }), RUNS);
  });

  it('is null exactly when not even one base unit would be allowed', () => {
    fc.assert(fc.property(servedInput, (input) => {
      const result = evaluateRisk(input);
      const max = counterfactuals(input, result).max_allowed_amount;
      if (max !== null) return;
      notEqual(decision(input, unitsToAmount(1n, decimalsOf(input))), 'allow');
    }), RUNS);
  });

  it('null for a fake token, a blocked asset and a danger flag', () => {
    const fake = makeInput({ trade: { amount: 30, contract_address: '0x9999999999999999999999999999999999999999' }, registryByAddress: null });
    const blocked = makeInput({ trade: { amount: 30 }, blockedAssets: ['TSLA'] });
    const danger = makeInput({ trade: { amount: 30 }, safety: { severity: 'danger', flaggedDanger: true } });
    for (const input of [fake, blocked, danger]) equal(counterfactuals(input, evaluateRisk(input)).max_allowed_amount, null);
  });

  it('the engine is monotone in amount: a larger amount is never allowed where a smaller one is not', () => {
    fc.assert(fc.property(servedInput, fc.double({ min: 0, max: 1, noNaN: true }), (input, share) => {
      const smaller = input.trade.amount * share;
      if (smaller <= 0 || decision(input, input.trade.amount) !== 'allow') return;
      strictEqual(decision(input, smaller), 'allow');
    }), { numRuns: 2000 });
  });
});

describe('tier_needed', () => {
  it('names the lowest tier whose ceiling allows the trade, with its holdings threshold', () => {
    const input = makeInput({ trade: { amount: 60 } }); // 15,000 USD: over Tier 1, under Tier 2
    deepStrictEqual(counterfactuals(input, evaluateRisk(input)).tier_needed, { tier: 2, min_tokens: 2_500 });
    const huge = makeInput({ trade: { amount: 1_000 } }); // 250,000 USD: over every tier
    equal(counterfactuals(huge, evaluateRisk(huge)).tier_needed, undefined);
  });

  it('on the property: allowed at the tier named, at no tier between', () => {
    fc.assert(fc.property(servedInput, (input) => {
      const needed = counterfactuals(input, evaluateRisk(input)).tier_needed;
      if (needed === undefined) return;
      const threshold = TIER_THRESHOLDS.find((t) => t.tier === needed.tier)!;
      strictEqual(needed.min_tokens, threshold.minTokens);
      ok(needed.tier > input.entitledTier && needed.tier >= input.policy.tier);
      strictEqual(scoreTrade({ ...input, policy: { ...input.policy, ...tierPolicyOf(needed.tier) }, entitledTier: needed.tier }).decision, 'allow');
    }), RUNS);
  });
});

function tierPolicyOf(tier: 1 | 2 | 3) {
  const ceilings = { 1: 5_000, 2: 25_000, 3: 100_000 } as const;
  return { tier, maxTradeUsd: ceilings[tier], advisoryFloorUsd: ceilings[tier] / 10, dailyLossLimitUsd: ceilings[tier] };
}

describe('retry_after_seconds', () => {
  // Limit 10: 8 hits weigh in; a next evaluation is clear once at most 6 earlier hits remain.
  const hits = [0, 5_000, 10_000, 20_000, 30_000, 40_000, 50_000, 55_000].map((offset) => TUESDAY_OPEN_MS - 55_000 + offset);
  const input = makeInput({ trade: { max_slippage_bps: 1001 }, wallet: { windowCount: 8, windowLimit: 10, windowHitsMs: hits }, safety: { severity: 'warn' }, price: { source: 'venue_v4' } });

  it('is the time until enough of the oldest hits leave the window', () => {
    const result = evaluateRisk(input);
    equal(result.decision, 'warn');
    // The second-oldest hit (5 s into the window) leaves at its time + 60 s, 10 s from now.
    equal(counterfactuals(input, result).retry_after_seconds, 10);
  });

  it('after that time the window no longer weighs in, one second before it still does', () => {
    const retry = counterfactuals(input, evaluateRisk(input)).retry_after_seconds!;
    const at = (ms: number) => {
      const kept = hits.filter((hit) => hit > ms - 60_000);
      return evaluateRisk({ ...input, nowMs: ms, wallet: { ...input.wallet, windowCount: kept.length + 1 } });
    };
    ok(!at(TUESDAY_OPEN_MS + retry * 1000).reasons.some((r) => r.includes('RATE_WINDOW_NEAR_LIMIT')));
    ok(at(TUESDAY_OPEN_MS + (retry - 1) * 1000).reasons.some((r) => r.includes('RATE_WINDOW_NEAR_LIMIT')));
  });

  it('is absent when the window did not weigh in', () => {
    const quiet = makeInput({ trade: { amount: 30 } });
    equal(counterfactuals(quiet, evaluateRisk(quiet)).retry_after_seconds, undefined);
  });
});

describe('next_market_open and the whole set', () => {
  it('a Saturday deny points at Monday 09:30 New York (14:30 UTC in January)', () => {
    const input = makeInput({ trade: { amount: 30 }, nowMs: SATURDAY_MS });
    equal(counterfactuals(input, evaluateRisk(input)).next_market_open, Date.UTC(2026, 0, 12, 14, 30) / 1000);
    const open = makeInput({ trade: { amount: 30 } });
    equal(counterfactuals(open, evaluateRisk(open)).next_market_open, undefined);
  });

  it('nothing for an allow; identical inputs give identical fields, across the wire too', () => {
    deepStrictEqual(counterfactuals(makeInput(), evaluateRisk(makeInput())), {});
    fc.assert(fc.property(servedInput, (input) => {
      const once = scoreTrade(input);
      deepStrictEqual(scoreTrade(structuredClone(input)), once);
      deepStrictEqual(decodeResults(encodeResults([once]))[0], JSON.parse(JSON.stringify(once)));
    }), { numRuns: 200 });
  });
});
