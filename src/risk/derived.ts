// Facts the engine derives once from a RiskInput and shares between the overrides and the categories.
import { marketSession, type MarketSession } from './market-hours.js';
import { roundCents } from './format.js';
import type { RiskInput } from './types.js';

/** How the requested asset / contract_address pair relates to the official registry. */
export type RegistryState = 'match' | 'mismatch' | 'unregistered';

export interface Derived {
  /** Symbol as requested, upper-cased (policy lists store upper-case symbols). */
  symbol: string;
  /** contract_address lower-cased (registry and policy comparisons are case-insensitive). */
  address: string;
  registry: RegistryState;
  /** True when the contract itself is a registry token. */
  registryContract: boolean;
  /** A finite, positive USD price exists; anything else fails closed (ARCHITECTURE.md "Advisory floor"). */
  priceKnown: boolean;
  /** amount * price rounded to cents; 0 when no price is known. */
  notionalUsd: number;
  /** Positive USD loss since the start of the UTC day; 0 on a gain. */
  lossUsd: number;
  session: MarketSession;
}

export function registryState(input: RiskInput, symbol: string, address: string): RegistryState {
  const bySymbol = input.registryBySymbol;
  if (bySymbol !== null) {
    return bySymbol.contract_address.toLowerCase() === address ? 'match' : 'mismatch';
  }
  const byAddress = input.registryByAddress;
  if (byAddress === null) return 'unregistered';
  // A registry token's address under another (unknown) symbol is a relabelled token: spec
  // "Hard overrides", the asset / contract_address pair does not match the registry entry.
  return byAddress.symbol.toUpperCase() === symbol ? 'match' : 'mismatch';
}

export function deriveFacts(input: RiskInput): Derived {
  const symbol = input.trade.asset.toUpperCase();
  const address = input.trade.contract_address.toLowerCase();
  const registry = registryState(input, symbol, address);
  const { usd, source } = input.price;
  const priceKnown = source !== 'unavailable' && Number.isFinite(usd) && usd > 0;
  const pnl = input.wallet.dailyPnlUsd;
  return {
    symbol,
    address,
    registry,
    registryContract: registry === 'match' || input.registryByAddress !== null,
    priceKnown,
    notionalUsd: priceKnown ? roundCents(input.trade.amount * usd) : 0,
    lossUsd: pnl < 0 ? -pnl : 0,
    session: marketSession(input.nowMs),
  };
}
