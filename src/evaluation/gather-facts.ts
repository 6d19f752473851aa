// Gathers everything the pure engine needs for one trade: registry, price, safety flag, policy.
import type { PriceProvider } from '../prices/price-provider.js';
import { UNAVAILABLE } from '../prices/price-provider.js';
import type { Registry, RegistryAsset } from '../registry/registry.js';
import type { RegistryFact, RiskInput, SafetyFact, TierPolicy, TradeInput } from '../risk/types.js';
import type { CacheStore } from '../store/cache-store.js';

export interface FactSources {
  registry: Registry;
  prices: PriceProvider;
  store: CacheStore;
}

export interface WindowFacts {
  windowCount: number;
  windowLimit: number;
  nowMs: number;
}

/** Store keys other capabilities write: token-safety danger flags and wallet policies. */
export const dangerKey = (address: string) => `danger:${address.toLowerCase()}`;
export const policyKey = (wallet: string) => `policy:${wallet.toLowerCase()}`;

/** Rejects when the store cannot answer, so the caller fails closed. */
export async function gatherFacts(
  sources: FactSources,
  trade: TradeInput,
  policy: TierPolicy,
  window: WindowFacts,
): Promise<RiskInput> {
  const bySymbol = sources.registry.bySymbol(trade.asset);
  const byAddress = sources.registry.byAddress(trade.contract_address);
  const [price, danger, blocked] = await Promise.all([
    // A fake token is priced as the asset it claims to be, so the caller sees the notional it meant.
    bySymbol ? sources.prices.quote(bySymbol) : Promise.resolve(UNAVAILABLE),
    sources.store.get(dangerKey(trade.contract_address)),
    sources.store.get(policyKey(trade.wallet)),
  ]);
  return {
    trade,
    policy,
    registryBySymbol: toFact(bySymbol),
    registryByAddress: toFact(byAddress),
    price,
    safety: safetyFact(danger),
    // Daily P&L needs holdings from chain; until that reader exists it is flat.
    wallet: { windowCount: window.windowCount, windowLimit: window.windowLimit, dailyPnlUsd: 0 },
    blockedAssets: parseBlocked(blocked),
    nowMs: window.nowMs,
  };
}

function toFact(asset: RegistryAsset | null): RegistryFact | null {
  if (!asset) return null;
  return {
    symbol: asset.symbol,
    contract_address: asset.contract_address,
    decimals: asset.decimals,
    is_native: asset.is_native,
  };
}

function safetyFact(danger: string | null): SafetyFact {
  if (danger === null) return { severity: 'unchecked', flaggedDanger: false, riskFactors: [] };
  const factors = parseFactors(danger);
  return { severity: 'danger', flaggedDanger: true, riskFactors: factors };
}

function parseFactors(flag: string): string[] {
  try {
    const parsed = JSON.parse(flag) as { risk_factors?: unknown };
    return Array.isArray(parsed.risk_factors) ? parsed.risk_factors.map(String) : [];
  } catch {
    return [];
  }
}

/** A stored policy is `{"blocked_assets": [...]}`; a corrupt one fails the evaluation (closed). */
export function parseBlocked(policy: string | null): string[] {
  if (policy === null) return [];
  const parsed = JSON.parse(policy) as { blocked_assets?: unknown };
  if (!Array.isArray(parsed.blocked_assets)) throw new Error('stored wallet policy is malformed');
  return parsed.blocked_assets.map(String);
}
