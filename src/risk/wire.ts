// The compact JSON form in which risk inputs and results cross to and from the scoring threads.
import type { RegistryFact, RiskInput, RiskResult } from './types.js';

/**
 * Positional arrays instead of keyed objects: a batch of inputs is about 40% of the
 * keyed JSON's length, and V8 writes and reads it in about half the time, on the
 * event loop and in the threads alike. The order below is the format; encoder and
 * decoder sit side by side so they change together. A thread answers for the batch
 * it was given, so both ends always run this same file.
 */
type WireRegistry = [string, string, number, boolean] | null;

/** `registryByAddress` is usually the very entry `registryBySymbol` names; 0 says so. */
const SAME_AS_SYMBOL = 0;

function registryOut(fact: RegistryFact | null): WireRegistry {
  return fact === null ? null : [fact.symbol, fact.contract_address, fact.decimals, fact.is_native];
}

function registryIn(wire: WireRegistry): RegistryFact | null {
  return wire === null ? null : { symbol: wire[0], contract_address: wire[1], decimals: wire[2], is_native: wire[3] };
}

function inputOut(input: RiskInput): unknown[] {
  const { trade, policy, price, safety, wallet } = input;
  const byAddress = input.registryByAddress === input.registryBySymbol ? SAME_AS_SYMBOL : registryOut(input.registryByAddress);
  return [
    trade.wallet, trade.asset, trade.contract_address, trade.side, trade.amount, trade.max_slippage_bps,
    trade.deadline, trade.allow_unregistered,
    policy.tier, policy.maxTradeUsd, policy.advisoryFloorUsd, policy.dailyLossLimitUsd,
    registryOut(input.registryBySymbol), byAddress,
    price.usd, price.source, price.stale, price.deviationBps,
    safety.severity, safety.flaggedDanger, safety.riskFactors,
    wallet.windowCount, wallet.windowLimit, wallet.dailyPnlUsd, wallet.windowSeconds,
    input.blockedAssets, input.nowMs, input.entitledTier, wallet.windowHitsMs ?? null,
    price.alternative ?? null, input.permitRequested === true,
    input.limits ?? null, wallet.dailyNotionalUsedUsd ?? null, input.venue ?? null, safety.sellProvenAmount ?? null,
  ];
}

// `any` here: each position is typed by inputOut, the one writer of this format.
function inputIn(w: any[]): RiskInput {
  const bySymbol = registryIn(w[12]);
  return {
    trade: {
      wallet: w[0], asset: w[1], contract_address: w[2], side: w[3], amount: w[4], max_slippage_bps: w[5],
      deadline: w[6], allow_unregistered: w[7],
    },
    policy: { tier: w[8], maxTradeUsd: w[9], advisoryFloorUsd: w[10], dailyLossLimitUsd: w[11] },
    entitledTier: w[27],
    registryBySymbol: bySymbol,
    registryByAddress: w[13] === SAME_AS_SYMBOL ? bySymbol : registryIn(w[13]),
    price: { usd: w[14], source: w[15], stale: w[16], deviationBps: w[17], alternative: w[29] },
    safety: { severity: w[18], flaggedDanger: w[19], riskFactors: w[20], ...(w[34] === null ? {} : { sellProvenAmount: w[34] }) },
    wallet: {
      windowCount: w[21], windowLimit: w[22], dailyPnlUsd: w[23], windowSeconds: w[24],
      ...(w[28] ? { windowHitsMs: w[28] } : {}), ...(w[32] === null ? {} : { dailyNotionalUsedUsd: w[32] }),
    },
    blockedAssets: w[25],
    nowMs: w[26],
    permitRequested: w[30],
    ...(w[31] === null ? {} : { limits: w[31] }),
    ...(w[33] === null ? {} : { venue: w[33] }),
  };
}

function resultOut(result: RiskResult): unknown[] {
  const c = result.categories;
  return [
    result.decision, result.risk_score, result.reasons, result.calculated_notional_usd,
    c.registry, c.contract, c.price, c.wallet, c.trade, result.override, result.counterfactuals ?? null,
    // false: absent (facts without a venue reading), which JSON cannot tell from null.
    result.price_impact_bps === undefined ? false : result.price_impact_bps,
  ];
}

function resultIn(w: any[]): RiskResult {
  return {
    decision: w[0], risk_score: w[1], reasons: w[2], calculated_notional_usd: w[3],
    categories: { registry: w[4], contract: w[5], price: w[6], wallet: w[7], trade: w[8] },
    override: w[9],
    ...(w[11] === false ? {} : { price_impact_bps: w[11] }),
    ...(w[10] ? { counterfactuals: w[10] } : {}),
  };
}

export function encodeInputs(inputs: RiskInput[]): string {
  return JSON.stringify(inputs.map(inputOut));
}

export function decodeInputs(text: string): RiskInput[] {
  return (JSON.parse(text) as unknown[][]).map(inputIn);
}

export function encodeResults(results: RiskResult[]): string {
  return JSON.stringify(results.map(resultOut));
}

export function decodeResults(text: string): RiskResult[] {
  return (JSON.parse(text) as unknown[][]).map(resultIn);
}
