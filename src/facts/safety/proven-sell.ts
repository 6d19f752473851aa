// The largest sell the check saw go through at once, as the stored result keeps it and as an evaluation reads it back.
import { amountAtMost } from '../../risk/amount-grid.js';
import type { SellSimulation } from './sell-simulation.js';

/**
 * `sell_proven` of the stored result (`safety:<address>`): the sized sell's base units and the token's decimals
 * (ARCHITECTURE.md "Token safety"), so an evaluation can compare the trade's own amount with it exactly.
 */
export interface ProvenSell {
  units: string;
  decimals: number;
}

/**
 * The sized sell when it went through; null when none ran (no live pool, no proven balance slot) or it
 * reverted (a HONEYPOT finding says so). `decimals` is the token's as the check used them (the registry's,
 * else its own `decimals()`), 18 when neither answered, the grid an unlisted token's trade is read on.
 */
export function provenSell(sell: SellSimulation | Record<string, never> | null, decimals: number | null): ProvenSell | null {
  if (sell === null || !('sized_sell_ok' in sell) || sell.sized_sell_ok !== true || sell.sized_sell_amount === null) return null;
  return { units: sell.sized_sell_amount, decimals: decimals ?? 18 };
}

/**
 * The proven sell in token units, rounded down to what the service reads as at most that many base units;
 * undefined when the stored result has none (or is from before the figure was kept). Throws on one that is
 * there but malformed, so the evaluation fails closed rather than judge no size.
 */
export function provenSellAmount(stored: { sell_proven?: unknown }): number | undefined {
  const proven = stored.sell_proven;
  if (proven === undefined) return undefined;
  const { units, decimals } = (proven ?? {}) as Partial<ProvenSell>;
  if (typeof units !== 'string' || !/^[0-9]+$/.test(units) || typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 77) {
    throw new Error('stored token-safety result is malformed: sell_proven is not {units, decimals}');
  }
  return amountAtMost(BigInt(units), decimals);
}
