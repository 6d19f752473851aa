// An amount the token cannot carry: a trade that rounds to zero base units at the token's decimals is invalid input.
import type { Registry } from '../facts/registry/registry.js';
import { unitsAtMost } from '../risk/amount-grid.js';
import type { ValidationIssue } from '../schemas/validator.js';

/**
 * Decimals assumed for a contract the registry does not list. 18 is ERC-20's common default and
 * the finest grid a registry asset has, so no amount is refused here that the token could carry
 * at 18 decimals. A permit names the symbol's registry token (permit-issuer.ts), so it is never
 * signed on this assumption.
 */
export const UNREGISTERED_DECIMALS = 18;

/**
 * The grid the trade's amount is read on: the claimed symbol's registry entry, else the contract's,
 * else UNREGISTERED_DECIMALS. The same order as the permit's `maxAmount` and `max_allowed_amount`
 * (src/evaluation/permits/permit-issuer.ts, src/risk/counterfactuals.ts), so they agree on every amount.
 */
export function tradeDecimals(registry: Registry, trade: { asset: string; contract_address: string }): number {
  return (registry.bySymbol(trade.asset) ?? registry.byAddress(trade.contract_address))?.decimals ?? UNREGISTERED_DECIMALS;
}

/**
 * The 422 issue for an amount below one base unit (ARCHITECTURE.md "Hostile input"): 1e-30 or 5e-324
 * TSLA is no trade, and an `allow` for it would carry a permit for 0 units. Null when the amount is
 * at least one base unit; the schema already refused anything not positive and finite.
 */
export function amountIssue(registry: Registry, trade: { asset: string; contract_address: string; amount: number }): ValidationIssue | null {
  const decimals = tradeDecimals(registry, trade);
  // A whole token or more is at least one base unit on any grid: read exactly only below that, not on every verdict.
  if (Number.isFinite(trade.amount) && trade.amount >= 1 && decimals >= 0) return null;
  const units = unitsAtMost(trade.amount, decimals);
  if (units !== null && units > 0n) return null;
  const error = `amount is less than one base unit of the token (10^-${decimals} at ${decimals} decimals)`;
  return { loc: ['body', 'amount'], msg: `Value error, ${error}`, type: 'value_error', input: trade.amount, ctx: { error } };
}
