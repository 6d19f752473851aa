// Facts the engine derives once from a RiskInput and shares between the overrides and the categories.
import { marketSession, type MarketSession } from './market-hours.js';
import { formatNumber, roundCents } from './format.js';
import { tradeImpact, type TradeImpact } from './price-impact.js';
import { unprovenSellSize } from './sell-size.js';
import type { PriceFact, RiskInput } from './types.js';
import { THRESHOLDS } from './weights.js';

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
  /** The price the notional is judged at: the higher of the prices read (judgedPrice). */
  judged: { usd: number; source: PriceFact['source'] };
  /** amount * the judged price, rounded to cents; 0 when no price is known. */
  notionalUsd: number;
  /** The sources disagree by more than THRESHOLDS.deviationBps, or the oracle round is stale. */
  priceFlagged: boolean;
  /** Positive USD loss since the start of the UTC day; 0 on a gain. */
  lossUsd: number;
  session: MarketSession;
  /** The trade's price impact on the venue pool; null when the facts hold no venue reading (ARCHITECTURE.md "Price impact"). */
  impact: TradeImpact | null;
  /** The largest sell the token-safety check proved, when the trade's amount exceeds it; else null (ARCHITECTURE.md "Token safety"). */
  sellUnproven: number | null;
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

/**
 * ARCHITECTURE.md "Prices that disagree": a notional is never judged on the cheaper of two prices.
 * When a second source priced the asset and its price is higher, ceilings use it.
 */
export function judgedPrice(price: PriceFact): { usd: number; source: PriceFact['source'] } {
  const other = price.alternative;
  if (other && Number.isFinite(other.usd) && other.usd > price.usd) return { usd: other.usd, source: other.source };
  return { usd: price.usd, source: price.source };
}

/** The lower of the prices read, the one that shows the larger loss on holdings (ARCHITECTURE.md "Prices that disagree"). */
export function lowerPrice(price: PriceFact): number {
  const other = price.alternative?.usd;
  return other !== undefined && Number.isFinite(other) && other > 0 && other < price.usd ? other : price.usd;
}

/** A price the service itself doubts: a stale oracle round, sources apart beyond the bound, or a built-in default. */
export function priceFlagged(price: PriceFact): boolean {
  return price.stale || price.source === 'fallback_default' || (price.deviationBps !== null && price.deviationBps > THRESHOLDS.deviationBps);
}

const SOURCE_WORDS: Readonly<Record<PriceFact['source'], string>> = { oracle: 'oracle', venue_v4: 'venue', fallback_default: 'default', unavailable: 'unavailable' };

/** Words for a reason when the notional was judged at the other source's price; '' when at the quoted one. */
export function judgedNote(input: RiskInput, d: Derived): string {
  if (d.judged.source === input.price.source) return '';
  return ` (judged at the ${SOURCE_WORDS[d.judged.source]} price of ${formatNumber(d.judged.usd)} USD, the higher of the prices read)`;
}

export function deriveFacts(input: RiskInput): Derived {
  const symbol = input.trade.asset.toUpperCase();
  const address = input.trade.contract_address.toLowerCase();
  const registry = registryState(input, symbol, address);
  const { usd, source } = input.price;
  const priceKnown = source !== 'unavailable' && Number.isFinite(usd) && usd > 0;
  const judged = priceKnown ? judgedPrice(input.price) : { usd, source };
  const pnl = input.wallet.dailyPnlUsd;
  return {
    symbol,
    address,
    registry,
    registryContract: registry === 'match' || input.registryByAddress !== null,
    priceKnown,
    judged,
    notionalUsd: priceKnown ? roundCents(input.trade.amount * judged.usd) : 0,
    priceFlagged: priceFlagged(input.price),
    lossUsd: pnl < 0 ? -pnl : 0,
    session: marketSession(input.nowMs),
    impact: tradeImpact(input),
    sellUnproven: unprovenSellSize(input),
  };
}
