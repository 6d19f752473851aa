// A wallet's own limits: from and to their wire form, checked against the tier and the registry, and their change in words.
import type { WalletLimits } from '../../risk/types.js';
import type { WalletLimitsBody } from '../../schemas/resources.js';
import type { ValidationIssue } from '../../schemas/validator.js';

/** The wire form with every field present, null where unset (GET /api/v1/config and the stored policy). */
export type WireLimits = { [K in keyof WalletLimitsBody]-?: Exclude<WalletLimitsBody[K], undefined> };

/** Symbols upper-cased and deduplicated, sides in a fixed order; a body with no field set is no limits (null). */
export function limitsFromWire(body: WalletLimitsBody | null): WalletLimits | null {
  if (body === null) return null;
  const limits: WalletLimits = {
    maxTradeUsd: body.max_trade_usd ?? null,
    dailyNotionalUsd: body.daily_notional_usd ?? null,
    allowedAssets: body.allowed_assets == null ? null : [...new Set(body.allowed_assets.map((symbol) => symbol.trim().toUpperCase()))],
    allowedSides: body.allowed_sides == null ? null : (['buy', 'sell'] as const).filter((side) => body.allowed_sides!.includes(side)),
    maxSlippageBps: body.max_slippage_bps ?? null,
  };
  return Object.values(limits).every((value) => value === null) ? null : limits;
}

export function limitsToWire(limits: WalletLimits | null): WireLimits | null {
  if (limits === null) return null;
  return {
    max_trade_usd: limits.maxTradeUsd,
    daily_notional_usd: limits.dailyNotionalUsd,
    allowed_assets: limits.allowedAssets,
    allowed_sides: limits.allowedSides,
    max_slippage_bps: limits.maxSlippageBps,
  };
}

/**
 * ARCHITECTURE.md "Fleet limits": limits only tighten. A per-trade limit above the tier's ceiling,
 * or an asset the registry does not hold, is refused (422), never applied or silently capped.
 */
export function limitsIssues(limits: WalletLimits | null, tierMaxTradeUsd: number, isRegistered: (symbol: string) => boolean): ValidationIssue[] {
  if (limits === null) return [];
  const issues: ValidationIssue[] = [];
  if (limits.maxTradeUsd !== null && limits.maxTradeUsd > tierMaxTradeUsd) {
    const error = `max_trade_usd ${limits.maxTradeUsd} is above this wallet's tier ceiling of ${tierMaxTradeUsd} USD; a limit may only tighten the tier`;
    issues.push(valueError(['body', 'limits', 'max_trade_usd'], limits.maxTradeUsd, error));
  }
  (limits.allowedAssets ?? []).forEach((symbol, index) => {
    if (isRegistered(symbol)) return;
    const error = `${symbol} is not in the official registry (GET /api/v1/assets lists its symbols)`;
    issues.push(valueError(['body', 'limits', 'allowed_assets', index], symbol, error));
  });
  return issues;
}

function valueError(loc: (string | number)[], input: unknown, error: string): ValidationIssue {
  return { loc, msg: `Value error, ${error}`, type: 'value_error', input, ctx: { error } };
}

/** Each field whose value changed, as `field: before -> after`, for the audit record of the change; '' when none did. */
export function limitsChange(before: WalletLimits | null, after: WalletLimits | null): string {
  const from = limitsToWire(before);
  const to = limitsToWire(after);
  const fields = ['max_trade_usd', 'daily_notional_usd', 'allowed_assets', 'allowed_sides', 'max_slippage_bps'] as const;
  return fields
    .map((field) => [field, JSON.stringify(from?.[field] ?? null), JSON.stringify(to?.[field] ?? null)] as const)
    .filter(([, a, b]) => a !== b)
    .map(([field, a, b]) => `${field}: ${a} -> ${b}`)
    .join(', ');
}
