// Golden verdicts: whole RiskResults for fixed fact sets, pinned so any scoring change is deliberate.
import { deepStrictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import type { RegistryFact } from '../../../src/risk/types.js';
import { makeInput, NVDA, SATURDAY_MS, UNKNOWN_ADDRESS } from '../../support/risk-fixtures.js';

const SPY: RegistryFact = { symbol: 'SPY', contract_address: '0x3333333333333333333333333333333333333333', decimals: 18, is_native: false };
/** Black Friday 2026-11-27 12:30 America/New_York (EST): open, early-close session. */
const BLACK_FRIDAY_1230_MS = Date.UTC(2026, 10, 27, 17, 30);
/** Good Friday 2026-04-03 11:00 America/New_York (EDT): exchange holiday. */
const GOOD_FRIDAY_MS = Date.UTC(2026, 3, 3, 15, 0);

describe('golden verdicts', () => {
  it('a clean oracle-priced Tier 1 trade in session allows with score 0', () => {
    deepStrictEqual(evaluateRisk(makeInput()), {
      decision: 'allow',
      risk_score: 0,
      reasons: [],
      calculated_notional_usd: 1000,
      categories: { registry: 0, contract: 0, price: 0, wallet: 0, trade: 0 },
      override: null,
    });
  });

  it('a venue-priced Tier 2 NVDA trade near the ceiling on an early-close day warns', () => {
    const input = makeInput({
      tier: 2,
      trade: { asset: 'NVDA', contract_address: NVDA.contract_address, amount: 150, max_slippage_bps: 400 },
      registryBySymbol: NVDA,
      registryByAddress: NVDA,
      price: { usd: 140.25, source: 'venue_v4', deviationBps: 250 },
      safety: { severity: 'warn', riskFactors: ['mint_function'] },
      wallet: { windowCount: 20, windowLimit: 25, windowSeconds: 60, dailyPnlUsd: 1200 },
      nowMs: BLACK_FRIDAY_1230_MS,
    });
    deepStrictEqual(evaluateRisk(input), {
      decision: 'warn',
      risk_score: 34,
      reasons: [
        `CONTRACT_SAFETY_WARN: token-safety check returned severity=warn for ${NVDA.contract_address} (risk factors: mint_function)`,
        'PRICE_FROM_VENUE: price 140.25 USD comes from a venue v4 pool, not the oracle',
        'PRICE_DEVIATION: oracle and venue prices differ by 250 bps (threshold 200 bps)',
        'RATE_WINDOW_NEAR_LIMIT: 20 of 25 evaluations used in the current 60 s window',
        'SLIPPAGE_HIGH: max_slippage_bps of 400 exceeds 300 bps',
        'NOTIONAL_NEAR_TIER_LIMIT: 21,037.5 USD is 84.2% of the Tier 2 ceiling of 25,000 USD',
      ],
      calculated_notional_usd: 21037.5,
      categories: { registry: 0, contract: 15, price: 8, wallet: 5, trade: 6 },
      override: null,
    });
  });

  it('a weekend Tier 3 sell priced by a stale built-in default above the floor denies', () => {
    const input = makeInput({
      tier: 3,
      trade: { asset: 'SPY', contract_address: SPY.contract_address, side: 'sell', amount: 30, deadline: SATURDAY_MS / 1000 + 25 },
      registryBySymbol: SPY,
      registryByAddress: SPY,
      price: { usd: 690.12, source: 'fallback_default', stale: true, deviationBps: null },
      wallet: { dailyPnlUsd: -60_000 },
      nowMs: SATURDAY_MS,
    });
    deepStrictEqual(evaluateRisk(input), {
      decision: 'deny',
      risk_score: 25,
      reasons: [
        'PRICE_FALLBACK_OVER_FLOOR: 20,703.6 USD priced from a built-in default exceeds the Tier 3 advisory floor of 10,000 USD',
        'PRICE_STALE: the oracle round is older than its staleness limit',
        'ADVISORY: MARKET_CLOSED: NYSE regular session is closed (weekend); the 24/5 feed may lag',
        'DAILY_LOSS_HIGH: daily loss of 60,000 USD is 60% of the Tier 3 limit of 100,000 USD',
        'ADVISORY: DEADLINE_NEAR: deadline is 25 s away; the trade may expire before it executes',
      ],
      calculated_notional_usd: 20703.6,
      categories: { registry: 0, contract: 0, price: 15, wallet: 10, trade: 0 },
      override: 'PRICE_FALLBACK_OVER_FLOOR',
    });
  });

  it('a dust-sized unregistered, unchecked token on Good Friday warns', () => {
    const input = makeInput({
      trade: { asset: 'MEME', contract_address: UNKNOWN_ADDRESS, amount: 1e-9, allow_unregistered: true },
      registryBySymbol: null,
      registryByAddress: null,
      price: { usd: 0.00004213, source: 'venue_v4', deviationBps: null },
      nowMs: GOOD_FRIDAY_MS,
    });
    deepStrictEqual(evaluateRisk(input), {
      decision: 'warn',
      risk_score: 41,
      reasons: [
        'UNREGISTERED_ALLOWED: MEME is not in the official registry; scored only because allow_unregistered is true',
        `CONTRACT_UNCHECKED: no token-safety result exists for unregistered contract ${UNKNOWN_ADDRESS}`,
        'PRICE_FROM_VENUE: price 0.00004213 USD comes from a venue v4 pool, not the oracle',
        'ADVISORY: MARKET_CLOSED: NYSE regular session is closed (holiday); the 24/5 feed may lag',
      ],
      calculated_notional_usd: 0,
      categories: { registry: 20, contract: 15, price: 6, wallet: 0, trade: 0 },
      override: null,
    });
  });
});
