// fast-check arbitraries over every RiskInput field, biased toward clean trades but reaching every edge.
import fc from 'fast-check';
import { tierPolicy } from '../../src/risk/tiers.js';
import type { RegistryFact, RiskInput, Tier } from '../../src/risk/types.js';
import { NVDA, TSLA } from './risk-fixtures.js';

/** Mostly `common`, one time in five `rare`: keeps every band reachable while edges still show up. */
function mostly<T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: common, weight: 4 }, { arbitrary: rare, weight: 1 });
}

const address = fc.stringMatching(/^0x[a-fA-F0-9]{40}$/);

const registryFact: fc.Arbitrary<RegistryFact> = mostly(
  fc.constantFrom(TSLA, NVDA),
  fc.record({ symbol: fc.string({ minLength: 1, maxLength: 8 }), contract_address: address, decimals: fc.integer({ min: 0, max: 36 }), is_native: fc.boolean() }),
);

const EDGE_POSITIVE = [Number.MIN_VALUE, 1e-18, 1e-9, 0.01, 1, 4, 28.8, 1e9, 1e15, 1e300, Number.MAX_VALUE];
const anyPositive = fc.oneof(fc.constantFrom(...EDGE_POSITIVE), fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }));
const amount = mostly(fc.double({ min: 1e-6, max: 100, noNaN: true }), anyPositive);
/** Prices may be anything an upstream bug could hand over: zero, negative, NaN, infinite. */
const price = mostly(fc.double({ min: 1e-6, max: 1000, noNaN: true }), fc.oneof(anyPositive, fc.constantFrom(0, -1, Number.NaN, Number.POSITIVE_INFINITY), fc.double()));

// 1970 to 2100: the span the calendar has to handle.
const nowMs = fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) });

const trade = fc.record({
  wallet: address,
  asset: fc.oneof(fc.constantFrom('TSLA', 'NVDA', 'tsla', 'FOO'), fc.string({ minLength: 1, maxLength: 32 })),
  contract_address: fc.oneof(fc.constantFrom(TSLA.contract_address, NVDA.contract_address), address),
  side: fc.constantFrom('buy' as const, 'sell' as const),
  amount,
  max_slippage_bps: fc.oneof(fc.constantFrom(0, 100, 300, 301, 500, 501, 1000, 1001, 10000), fc.integer({ min: 0, max: 10000 })),
  deadline: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: null, freq: 2 }),
  allow_unregistered: fc.boolean(),
});

const rawInput: fc.Arbitrary<RiskInput> = fc.record({
  trade,
  policy: fc.constantFrom<Tier>(1, 2, 3).map(tierPolicy),
  entitledTier: fc.constantFrom<Tier>(1, 2, 3),
  registryBySymbol: fc.option(registryFact, { nil: null }),
  registryByAddress: fc.option(registryFact, { nil: null }),
  price: fc.record({
    usd: price,
    source: mostly(fc.constantFrom('oracle' as const, 'venue_v4' as const, 'fallback_default' as const), fc.constant('unavailable' as const)),
    stale: fc.boolean(),
    deviationBps: fc.option(fc.oneof(fc.constantFrom(200, 201, 1000, 1001), fc.double({ min: 0, max: 1e6, noNaN: true })), { nil: null }),
    alternative: fc.option(fc.record({ usd: price, source: fc.constantFrom('oracle' as const, 'venue_v4' as const) }), { nil: null, freq: 2 }),
  }),
  safety: fc.record({
    severity: mostly(fc.constantFrom('safe' as const, 'warn' as const, 'unchecked' as const), fc.constant('danger' as const)),
    flaggedDanger: mostly(fc.constant(false), fc.constant(true)),
    riskFactors: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
    // The largest sell the check proved, near the trade's amounts so both sides of it are drawn; absent in most draws.
    sellProvenAmount: fc.oneof(fc.constantFrom(0, 1, 4, 100), fc.double({ min: 0, max: 200, noNaN: true })),
  }, { requiredKeys: ['severity', 'flaggedDanger', 'riskFactors'] }),
  wallet: fc.record({
    windowCount: fc.nat(100),
    windowLimit: fc.nat(100),
    windowSeconds: fc.constantFrom(60, 30, 3600),
    dailyPnlUsd: mostly(fc.double({ min: -60_000, max: 10_000, noNaN: true }), fc.oneof(fc.constantFrom(0, -2500, -5000, -25000, -100000), fc.double({ noNaN: true }))),
  }),
  blockedAssets: mostly(fc.constant([]), fc.array(fc.oneof(fc.constantFrom('TSLA', 'NVDA', TSLA.contract_address), address.map((a) => a.toLowerCase())), { maxLength: 3 })),
  nowMs,
  permitRequested: fc.boolean(),
});

/**
 * Inputs over every field. Most draws align the trade with its registry entry, and some put the
 * deadline within a minute of `nowMs`, so matched trades and near/passed deadlines are common.
 */
export const riskInput: fc.Arbitrary<RiskInput> = fc
  .tuple(
    rawInput,
    mostly(fc.constant(true), fc.constant(false)),
    fc.option(fc.integer({ min: -60, max: 60 }), { nil: null, freq: 2 }),
    mostly(fc.constant(false), fc.constant(true)),
  )
  .map(([input, align, deadlineOffset, previewed]) => {
    const entry = input.registryBySymbol;
    const aligned = align && entry !== null;
    const deadline = deadlineOffset === null ? input.trade.deadline : Math.floor(input.nowMs / 1000) + deadlineOffset;
    return {
      ...input,
      // Mostly the tier itself (every channel but a REST preview), sometimes a preview above or below it.
      entitledTier: previewed ? input.entitledTier : input.policy.tier,
      registryByAddress: aligned ? entry : input.registryByAddress,
      trade: {
        ...input.trade,
        asset: aligned ? entry.symbol : input.trade.asset,
        contract_address: aligned ? entry.contract_address : input.trade.contract_address,
        deadline,
      },
    };
  });
