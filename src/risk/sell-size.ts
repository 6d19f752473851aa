// The trade's own size against the largest sell the token-safety check saw go through at once (ARCHITECTURE.md "Token safety").
import { formatNumber } from './format.js';
import type { RiskInput } from './types.js';

/**
 * The proven amount when the trade's amount exceeds it, else null. Judged only when the check ran and
 * found no danger (severity safe or warn): a danger result already denies, and without a result there is
 * no figure. Buy and sell alike: a seller sells this amount now, a buyer later. Facts without the figure
 * (no sized sell ran, or recorded before the rule) never fire, so old logs replay as they were.
 */
export function unprovenSellSize(input: RiskInput): number | null {
  const { severity, flaggedDanger, sellProvenAmount } = input.safety;
  if (flaggedDanger || (severity !== 'safe' && severity !== 'warn')) return null;
  if (sellProvenAmount === undefined || !Number.isFinite(sellProvenAmount)) return null;
  return input.trade.amount > sellProvenAmount ? sellProvenAmount : null;
}

/** The words of SELL_SIZE_UNPROVEN: both amounts to every digit the service reads, so close figures never read alike. */
export function unprovenSellWords(amount: number, proven: number, symbol: string): string {
  return `a sell of ${amountText(amount)} ${symbol} at once was not shown to go through: the token-safety check sold at most ${amountText(proven)} at once`;
}

/** Grouped like every number of a reason when that loses no digit, else the number as JSON writes it. */
function amountText(value: number): string {
  const grouped = formatNumber(value);
  return Number(grouped.replace(/,/g, '')) === value ? grouped : String(value);
}
