// Risk engine: every hard override with its exact reason, band boundaries and advisory semantics.
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import type { RiskResult } from '../../../src/risk/types.js';
import { makeInput, mergePatches, NVDA, SATURDAY_MS, TSLA, TUESDAY_OPEN_MS, UNKNOWN_ADDRESS, UNREGISTERED_ALLOWED } from '../../support/risk-fixtures.js';

const ZERO = { registry: 0, contract: 0, price: 0, wallet: 0, trade: 0 };

function result(partial: Partial<RiskResult> & Pick<RiskResult, 'decision' | 'reasons'>): RiskResult {
  const categories = { ...ZERO, ...partial.categories };
  const risk_score = Object.values(categories).reduce((a, b) => a + b, 0);
  return { calculated_notional_usd: 1000, override: null, ...partial, categories, risk_score };
}

describe('hard overrides (spec "Risk score": force deny regardless of band)', () => {
  it('FAKE_TOKEN_SUSPECTED when the address differs from the registry address for the symbol', () => {
    const got = evaluateRisk(makeInput({ trade: { contract_address: UNKNOWN_ADDRESS }, registryByAddress: null }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'FAKE_TOKEN_SUSPECTED',
      categories: { ...ZERO, registry: 30, contract: 15 },
      reasons: [
        `FAKE_TOKEN_SUSPECTED: contract ${UNKNOWN_ADDRESS} does not match the registry address ${TSLA.contract_address} for TSLA`,
        `CONTRACT_UNCHECKED: no token-safety result exists for unregistered contract ${UNKNOWN_ADDRESS}`,
      ],
    }));
  });

  it('FAKE_TOKEN_SUSPECTED when an unknown symbol carries a registry token address, even in the allow band', () => {
    const got = evaluateRisk(makeInput({ trade: { asset: 'TSLAX', allow_unregistered: true }, registryBySymbol: null }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'FAKE_TOKEN_SUSPECTED',
      categories: { ...ZERO, registry: 30 },
      reasons: [`FAKE_TOKEN_SUSPECTED: contract ${TSLA.contract_address} is the registry address of TSLA, not of TSLAX`],
    }));
  });

  it('UNREGISTERED_ASSET when the symbol is unknown and allow_unregistered is false', () => {
    const got = evaluateRisk(makeInput({ trade: { asset: 'FOO', contract_address: UNKNOWN_ADDRESS }, registryBySymbol: null, registryByAddress: null }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'UNREGISTERED_ASSET',
      categories: { ...ZERO, registry: 30, contract: 15 },
      reasons: [
        'UNREGISTERED_ASSET: FOO is not in the official registry and allow_unregistered is false',
        `CONTRACT_UNCHECKED: no token-safety result exists for unregistered contract ${UNKNOWN_ADDRESS}`,
      ],
    }));
  });

  it('CONTRACT_FLAGGED_DANGER lists the risk factors', () => {
    const got = evaluateRisk(makeInput({ safety: { severity: 'danger', flaggedDanger: true, riskFactors: ['honeypot', 'sell_reverts'] } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'CONTRACT_FLAGGED_DANGER',
      categories: { ...ZERO, contract: 30 },
      reasons: [`CONTRACT_FLAGGED_DANGER: token-safety check returned severity=danger for ${TSLA.contract_address} (risk factors: honeypot, sell_reverts)`],
    }));
  });

  it('PRICE_UNAVAILABLE always denies, and the notional is 0', () => {
    const got = evaluateRisk(makeInput({ trade: { amount: 0.001 }, price: { usd: 0, source: 'unavailable', deviationBps: null } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'PRICE_UNAVAILABLE',
      calculated_notional_usd: 0,
      categories: { ...ZERO, price: 15 },
      reasons: ['PRICE_UNAVAILABLE: no usable USD price for TSLA, so the notional cannot be checked against the Tier 1 ceiling of 5,000 USD'],
    }));
  });

  it('PRICE_FALLBACK_OVER_FLOOR above the advisory floor (10% of the ceiling)', () => {
    const got = evaluateRisk(makeInput({ price: { source: 'fallback_default', deviationBps: null } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'PRICE_FALLBACK_OVER_FLOOR',
      categories: { ...ZERO, price: 8 },
      reasons: ['PRICE_FALLBACK_OVER_FLOOR: 1,000 USD priced from a built-in default exceeds the Tier 1 advisory floor of 500 USD'],
    }));
  });

  it('a fallback price at the advisory floor is scored, not denied', () => {
    const got = evaluateRisk(makeInput({ trade: { amount: 2 }, price: { source: 'fallback_default', deviationBps: null } }));
    deepStrictEqual(got, result({
      decision: 'allow',
      calculated_notional_usd: 500,
      categories: { ...ZERO, price: 8 },
      reasons: ['PRICE_FALLBACK_DEFAULT: price 250 USD is a built-in default, not a live quote'],
    }));
  });

  it('PRICE_FALLBACK_DEFAULT states the price of each evaluation when prices alternate (its words are kept for the last price only)', () => {
    for (const usd of [250, 310.5, 250, 310.5]) {
      const got = evaluateRisk(makeInput({ trade: { amount: 1 }, price: { source: 'fallback_default', deviationBps: null, usd } }));
      deepStrictEqual(got.reasons, [`PRICE_FALLBACK_DEFAULT: price ${usd} USD is a built-in default, not a live quote`]);
    }
  });

  it('NOTIONAL_OVER_TIER_LIMIT uses the reason-string example text', () => {
    const got = evaluateRisk(makeInput({ trade: { amount: 28.8 } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'NOTIONAL_OVER_TIER_LIMIT',
      calculated_notional_usd: 7200,
      categories: { ...ZERO, trade: 2 },
      reasons: ['NOTIONAL_OVER_TIER_LIMIT: 7,200 USD exceeds the Tier 1 ceiling of 5,000 USD'],
    }));
  });

  it('ASSET_BLOCKED_BY_POLICY matches the upper-case symbol', () => {
    const got = evaluateRisk(makeInput({ trade: { asset: 'tsla' }, blockedAssets: ['TSLA'] }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'ASSET_BLOCKED_BY_POLICY',
      reasons: ["ASSET_BLOCKED_BY_POLICY: TSLA is on this wallet's blocked-assets list"],
    }));
  });

  it('ASSET_BLOCKED_BY_POLICY matches the lower-case address whatever the request case', () => {
    const mixed = '0xABCDEFabcdefABCDEFabcdefABCDEFabcdefABCD';
    const entry = { ...NVDA, symbol: 'ABC', contract_address: mixed.toLowerCase() };
    const got = evaluateRisk(makeInput({ trade: { asset: 'ABC', contract_address: mixed }, registryBySymbol: entry, registryByAddress: entry, blockedAssets: [mixed.toLowerCase()] }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'ASSET_BLOCKED_BY_POLICY',
      reasons: ["ASSET_BLOCKED_BY_POLICY: 0xabcdefabcdefabcdefabcdefabcdefabcdefabcd is on this wallet's blocked-assets list"],
    }));
  });

  it('DAILY_LOSS_LIMIT at exactly the limit; its wallet points need no second reason', () => {
    const got = evaluateRisk(makeInput({ wallet: { dailyPnlUsd: -5000 } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'DAILY_LOSS_LIMIT',
      categories: { ...ZERO, wallet: 10 },
      reasons: ['DAILY_LOSS_LIMIT: daily loss of 5,000 USD reaches the Tier 1 limit of 5,000 USD'],
    }));
  });

  it('DEADLINE_PASSED reads the deadline as unix seconds', () => {
    const got = evaluateRisk(makeInput({ trade: { deadline: TUESDAY_OPEN_MS / 1000 - 12 } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'DEADLINE_PASSED',
      reasons: ['DEADLINE_PASSED: deadline 2026-01-06T14:59:48Z passed 12 s before evaluation'],
    }));
  });

  it('several overrides: all listed in priority order, the first one named', () => {
    const got = evaluateRisk(makeInput({ trade: { amount: 40 }, blockedAssets: ['TSLA'], safety: { flaggedDanger: true, severity: 'safe' } }));
    deepStrictEqual(got, result({
      decision: 'deny',
      override: 'CONTRACT_FLAGGED_DANGER',
      calculated_notional_usd: 10000,
      categories: { ...ZERO, contract: 30, trade: 2 },
      reasons: [
        `CONTRACT_FLAGGED_DANGER: token-safety check returned severity=danger for ${TSLA.contract_address}`,
        'NOTIONAL_OVER_TIER_LIMIT: 10,000 USD exceeds the Tier 1 ceiling of 5,000 USD',
        "ASSET_BLOCKED_BY_POLICY: TSLA is on this wallet's blocked-assets list",
      ],
    }));
  });
});

describe('score bands (spec "Risk score": 0-30 allow, 31-70 warn, 71-100 deny)', () => {
  it('30 allows', () => {
    const got = evaluateRisk(makeInput(mergePatches(UNREGISTERED_ALLOWED, { wallet: { dailyPnlUsd: -2500 } })));
    deepStrictEqual(got, result({
      decision: 'allow',
      categories: { ...ZERO, registry: 20, wallet: 10 },
      reasons: [
        'UNREGISTERED_ALLOWED: FOO is not in the official registry; scored only because allow_unregistered is true',
        'DAILY_LOSS_HIGH: daily loss of 2,500 USD is 50% of the Tier 1 limit of 5,000 USD',
      ],
    }));
  });

  it('31 warns', () => {
    const got = evaluateRisk(makeInput(mergePatches(UNREGISTERED_ALLOWED, { trade: { amount: 16.4, max_slippage_bps: 301 }, wallet: { windowCount: 8 } })));
    deepStrictEqual(got, result({
      decision: 'warn',
      calculated_notional_usd: 4100,
      categories: { ...ZERO, registry: 20, wallet: 5, trade: 6 },
      reasons: [
        'UNREGISTERED_ALLOWED: FOO is not in the official registry; scored only because allow_unregistered is true',
        'RATE_WINDOW_NEAR_LIMIT: 8 of 10 evaluations used in the current 60 s window',
        'SLIPPAGE_HIGH: max_slippage_bps of 301 exceeds 300 bps',
        'NOTIONAL_NEAR_TIER_LIMIT: 4,100 USD is 82% of the Tier 1 ceiling of 5,000 USD',
      ],
    }));
  });

  it('names the configured window length, not a fixed 60 s', () => {
    const got = evaluateRisk(makeInput({ wallet: { windowCount: 9, windowSeconds: 30 } }));
    deepStrictEqual(got.reasons, ['RATE_WINDOW_NEAR_LIMIT: 9 of 10 evaluations used in the current 30 s window']);
  });

  const high = mergePatches(UNREGISTERED_ALLOWED, {
    safety: { severity: 'warn', riskFactors: ['owner_can_pause'] },
    price: { source: 'venue_v4', stale: true, deviationBps: 250 },
    wallet: { windowCount: 9, dailyPnlUsd: -3000 },
  });
  const highReasons = [
    'UNREGISTERED_ALLOWED: FOO is not in the official registry; scored only because allow_unregistered is true',
    `CONTRACT_SAFETY_WARN: token-safety check returned severity=warn for ${UNKNOWN_ADDRESS} (risk factors: owner_can_pause)`,
    'PRICE_FROM_VENUE: price 250 USD comes from a venue v4 pool, not the oracle',
    'PRICE_STALE: the oracle round is older than its staleness limit',
    'PRICE_DEVIATION: oracle and venue prices differ by 250 bps (threshold 200 bps)',
  ];
  const walletReasons = [
    'RATE_WINDOW_NEAR_LIMIT: 9 of 10 evaluations used in the current 60 s window',
    'DAILY_LOSS_HIGH: daily loss of 3,000 USD is 60% of the Tier 1 limit of 5,000 USD',
  ];

  it('70 warns', () => {
    const got = evaluateRisk(makeInput(mergePatches(high, { trade: { max_slippage_bps: 600 } })));
    deepStrictEqual(got, result({
      decision: 'warn',
      categories: { registry: 20, contract: 15, price: 13, wallet: 15, trade: 7 },
      reasons: [...highReasons, ...walletReasons, 'SLIPPAGE_HIGH: max_slippage_bps of 600 exceeds 500 bps'],
    }));
  });

  it('71 denies by band alone (override stays null); market-closed points count toward the score', () => {
    const got = evaluateRisk(makeInput(mergePatches(high, { trade: { max_slippage_bps: 1500 }, price: { deviationBps: null }, nowMs: SATURDAY_MS })));
    deepStrictEqual(got, result({
      decision: 'deny',
      categories: { registry: 20, contract: 15, price: 11, wallet: 15, trade: 10 },
      reasons: [
        ...highReasons.slice(0, 4),
        'ADVISORY: MARKET_CLOSED: NYSE regular session is closed (weekend); the 24/5 feed may lag',
        ...walletReasons,
        'SLIPPAGE_HIGH: max_slippage_bps of 1,500 exceeds 1,000 bps',
      ],
    }));
  });
});

describe('ADVISORY reasons (spec "Decision semantics": non-blocking context)', () => {
  it('market closed and a near deadline still allow', () => {
    const deadline = SATURDAY_MS / 1000 + 20;
    const got = evaluateRisk(makeInput({ nowMs: SATURDAY_MS, trade: { deadline } }));
    deepStrictEqual(got, result({
      decision: 'allow',
      categories: { ...ZERO, price: 3 },
      reasons: [
        'ADVISORY: MARKET_CLOSED: NYSE regular session is closed (weekend); the 24/5 feed may lag',
        'ADVISORY: DEADLINE_NEAR: deadline is 20 s away; the trade may expire before it executes',
      ],
    }));
  });

  it('a deadline equal to the evaluation second has not passed', () => {
    const got = evaluateRisk(makeInput({ trade: { deadline: TUESDAY_OPEN_MS / 1000 } }));
    strictEqual(got.decision, 'allow');
    deepStrictEqual(got.reasons, ['ADVISORY: DEADLINE_NEAR: deadline is 0 s away; the trade may expire before it executes']);
  });
});
