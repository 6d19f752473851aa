// Shared fact sets for the risk-engine tests: a clean baseline trade and a patch helper.
import { tierPolicy } from '../../src/risk/tiers.js';
import type { RegistryFact, RiskInput, Tier } from '../../src/risk/types.js';

export const TSLA: RegistryFact = { symbol: 'TSLA', contract_address: '0x1111111111111111111111111111111111111111', decimals: 18, is_native: false };
export const NVDA: RegistryFact = { symbol: 'NVDA', contract_address: '0x2222222222222222222222222222222222222222', decimals: 18, is_native: false };
export const WALLET = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const UNKNOWN_ADDRESS = '0xdeaddeaddeaddeaddeaddeaddeaddeaddeaddead';

/** Tuesday 2026-01-06 10:00 America/New_York (15:00 UTC): NYSE regular session open. */
export const TUESDAY_OPEN_MS = Date.UTC(2026, 0, 6, 15, 0, 0);
/** Saturday 2026-01-10 12:00 America/New_York: market closed for the weekend. */
export const SATURDAY_MS = Date.UTC(2026, 0, 10, 17, 0, 0);

export interface Patch {
  trade?: Partial<RiskInput['trade']>;
  tier?: Tier;
  entitledTier?: Tier;
  registryBySymbol?: RegistryFact | null;
  registryByAddress?: RegistryFact | null;
  price?: Partial<RiskInput['price']>;
  safety?: Partial<RiskInput['safety']>;
  wallet?: Partial<RiskInput['wallet']>;
  blockedAssets?: string[];
  nowMs?: number;
}

/** Baseline: 4 TSLA at an oracle 250 USD (1,000 USD notional), Tier 1, market open; scores 0. */
export function makeInput(patch: Patch = {}): RiskInput {
  return {
    trade: {
      wallet: WALLET,
      asset: 'TSLA',
      contract_address: TSLA.contract_address,
      side: 'buy',
      amount: 4,
      max_slippage_bps: 100,
      deadline: null,
      allow_unregistered: false,
      ...patch.trade,
    },
    policy: tierPolicy(patch.tier ?? 1),
    entitledTier: patch.entitledTier ?? patch.tier ?? 1,
    registryBySymbol: patch.registryBySymbol === undefined ? TSLA : patch.registryBySymbol,
    registryByAddress: patch.registryByAddress === undefined ? TSLA : patch.registryByAddress,
    price: { usd: 250, source: 'oracle', stale: false, deviationBps: 10, ...patch.price },
    safety: { severity: 'unchecked', flaggedDanger: false, riskFactors: [], ...patch.safety },
    wallet: { windowCount: 1, windowLimit: 10, windowSeconds: 60, dailyPnlUsd: 0, ...patch.wallet },
    blockedAssets: patch.blockedAssets ?? [],
    nowMs: patch.nowMs ?? TUESDAY_OPEN_MS,
  };
}

/** An unregistered token scored because allow_unregistered is true (registry 20, contract 0 when safe). */
export const UNREGISTERED_ALLOWED: Patch = {
  trade: { asset: 'FOO', contract_address: UNKNOWN_ADDRESS, allow_unregistered: true },
  registryBySymbol: null,
  registryByAddress: null,
  safety: { severity: 'safe' },
};

/** Combines patches; nested fact groups merge field by field, later patches win. */
export function mergePatches(...patches: Patch[]): Patch {
  const out: Patch = {};
  for (const p of patches) {
    Object.assign(out, p, {
      trade: { ...out.trade, ...p.trade },
      price: { ...out.price, ...p.price },
      safety: { ...out.safety, ...p.safety },
      wallet: { ...out.wallet, ...p.wallet },
    });
  }
  return out;
}
