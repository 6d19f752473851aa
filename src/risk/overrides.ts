// Hard overrides: conditions that force `deny` whatever the score band, checked in a fixed priority order.
import { judgedNote, type Derived } from './derived.js';
import { formatNumber, formatUnixSeconds } from './format.js';
import { assetNotAllowed, overDailyBudget, overMaxTrade, sideNotAllowed, slippageOverLimit } from './limit-checks.js';
import { OVERRIDE_PRIORITY, reason, type OverrideCode } from './reason-codes.js';
import type { RiskInput } from './types.js';
import { THRESHOLDS } from './weights.js';

export interface FiredOverride {
  code: OverrideCode;
  reason: string;
}

type Check = (input: RiskInput, d: Derived) => string | null;

const usd = (value: number): string => `${formatNumber(value)} USD`;
const tierLabel = (input: RiskInput): string => `Tier ${input.policy.tier}`;

function fakeToken(input: RiskInput, d: Derived): string | null {
  if (d.registry !== 'mismatch') return null;
  const bySymbol = input.registryBySymbol;
  if (bySymbol !== null) {
    const expected = bySymbol.contract_address.toLowerCase();
    return `contract ${d.address} does not match the registry address ${expected} for ${bySymbol.symbol}`;
  }
  return `contract ${d.address} is the registry address of ${input.registryByAddress!.symbol}, not of ${input.trade.asset}`;
}

function flagWords(input: RiskInput): string {
  const { stale, source, deviationBps } = input.price;
  if (source === 'fallback_default') return 'the price is a built-in default, not a live quote';
  if (stale) return 'the oracle round is stale';
  return `oracle and venue prices differ by ${formatNumber(deviationBps ?? 0)} bps`;
}

function impactOverTolerance(input: RiskInput, d: Derived): string | null {
  const impact = d.impact;
  if (impact === null || impact.kind !== 'quoted') return null;
  const tolerance = input.trade.max_slippage_bps;
  const pool = `the venue pool at block ${impact.block}`;
  if (impact.fill !== 'filled') {
    const why = impact.fill === 'exhausted' ? 'its liquidity ends first' : 'the swap walks past the ticks read';
    return `${pool} cannot fill ${formatNumber(input.trade.amount)} ${d.symbol} (${why}); the part it fills already moves the price ${formatNumber(impact.bps)} bps`;
  }
  if (impact.bps <= tolerance) return null;
  return `price impact of ${formatNumber(impact.bps)} bps on ${pool} exceeds max_slippage_bps of ${formatNumber(tolerance)}`;
}

const CHECKS: Readonly<Record<OverrideCode, Check>> = {
  // ARCHITECTURE.md "Previews": a preview never grants more than the entitlement, so it
  // never says allow or warn (a warn would tell the caller the trade may proceed).
  PREVIEW_ABOVE_ENTITLEMENT: (input) =>
    input.policy.tier > input.entitledTier
      ? `evaluated as a preview of Tier ${input.policy.tier}; the wallet's holdings grant Tier ${input.entitledTier}, so this verdict is not an allowance`
      : null,
  // Spec "Hard overrides": the pair does not match the official registry entry.
  FAKE_TOKEN_SUSPECTED: fakeToken,
  UNREGISTERED_ASSET: (input, d) =>
    d.registry === 'unregistered' && !input.trade.allow_unregistered
      ? `${input.trade.asset} is not in the official registry and allow_unregistered is false`
      : null,
  // Spec "Hard overrides": a token-safety check returned severity=danger recently (24 h, ARCHITECTURE.md "Danger flag").
  CONTRACT_FLAGGED_DANGER: (input, d) => {
    const { flaggedDanger, severity, riskFactors } = input.safety;
    if (!flaggedDanger && severity !== 'danger') return null;
    const factors = riskFactors.length > 0 ? ` (risk factors: ${riskFactors.join(', ')})` : '';
    return `token-safety check returned severity=danger for ${d.address}${factors}`;
  },
  // ARCHITECTURE.md "Advisory floor": without any price the notional is unknown, so deny.
  PRICE_UNAVAILABLE: (input, d) => {
    if (d.priceKnown) return null;
    const ceiling = `the ${tierLabel(input)} ceiling of ${usd(input.policy.maxTradeUsd)}`;
    return `no usable USD price for ${input.trade.asset}, so the notional cannot be checked against ${ceiling}`;
  },
  // Spec "Errors": price_source unavailable above the advisory floor denies; a default price is
  // treated the same way, since it is no live quote (ARCHITECTURE.md "Advisory floor": fail closed).
  PRICE_FALLBACK_OVER_FLOOR: (input, d) => {
    const floor = input.policy.advisoryFloorUsd;
    if (!d.priceKnown || input.price.source !== 'fallback_default' || d.notionalUsd <= floor) return null;
    return `${usd(d.notionalUsd)} priced from a built-in default exceeds the ${tierLabel(input)} advisory floor of ${usd(floor)}`;
  },
  // ARCHITECTURE.md "Prices that disagree": sources this far apart leave no notional to trust.
  PRICE_SOURCES_DISAGREE: (input, d) => {
    const bps = input.price.deviationBps;
    if (!d.priceKnown || bps === null || bps <= THRESHOLDS.disagreementBps) return null;
    return `oracle and venue prices differ by ${formatNumber(bps)} bps (limit ${formatNumber(THRESHOLDS.disagreementBps)} bps), so neither can price this trade`;
  },
  // Spec "Tiers" / "Limits": max notional per trade, judged at the higher price read (ARCHITECTURE.md "Prices that disagree").
  NOTIONAL_OVER_TIER_LIMIT: (input, d) =>
    d.notionalUsd > input.policy.maxTradeUsd
      ? `${usd(d.notionalUsd)}${judgedNote(input, d)} exceeds the ${tierLabel(input)} ceiling of ${usd(input.policy.maxTradeUsd)}`
      : null,
  // Spec "PolicyConfig": blocked_assets, matched by upper-case symbol or lower-case address.
  ASSET_BLOCKED_BY_POLICY: (input, d) => {
    const hit = input.blockedAssets.find((entry) => entry.toUpperCase() === d.symbol || entry.toLowerCase() === d.address);
    if (hit === undefined) return null;
    const shown = hit.toUpperCase() === d.symbol ? d.symbol : d.address;
    return `${shown} is on this wallet's blocked-assets list`;
  },
  // ARCHITECTURE.md "Fleet limits": the wallet's own limits, which only tighten the tier's.
  POLICY_ASSET_NOT_ALLOWED: assetNotAllowed,
  POLICY_SIDE_NOT_ALLOWED: sideNotAllowed,
  POLICY_SLIPPAGE: slippageOverLimit,
  POLICY_MAX_TRADE: overMaxTrade,
  POLICY_DAILY_BUDGET: overDailyBudget,
  // ARCHITECTURE.md "Price impact": beyond the caller's own tolerance the swap reverts at its limit or fills outside it.
  PRICE_IMPACT_EXCEEDS_SLIPPAGE: impactOverTolerance,
  // ARCHITECTURE.md "Daily loss": loss at or above the tier's limit denies.
  DAILY_LOSS_LIMIT: (input, d) =>
    d.lossUsd >= input.policy.dailyLossLimitUsd
      ? `daily loss of ${usd(d.lossUsd)} reaches the ${tierLabel(input)} limit of ${usd(input.policy.dailyLossLimitUsd)}`
      : null,
  // Spec leaves the deadline unit open; the team reads it as unix seconds (types.ts).
  // ARCHITECTURE.md "Prices that disagree": a permit is a promise the chain enforces, so never on a doubted price.
  PERMIT_ON_FLAGGED_PRICE: (input, d) => {
    if (input.permitRequested !== true || !d.priceKnown || !d.priceFlagged) return null;
    return `a TradePermit was asked for, but ${flagWords(input)}; no permit is signed on a flagged price`;
  },
  DEADLINE_PASSED: (input) => {
    const deadline = input.trade.deadline;
    if (deadline === null || input.nowMs <= deadline * 1000) return null;
    const late = (input.nowMs - deadline * 1000) / 1000;
    return `deadline ${formatUnixSeconds(deadline)} passed ${formatNumber(late)} s before evaluation`;
  },
};

/** Every override that fired, in OVERRIDE_PRIORITY order; the first one names `RiskResult.override`. */
export function findOverrides(input: RiskInput, d: Derived): FiredOverride[] {
  const fired: FiredOverride[] = [];
  // An indexed loop: for-of here allocated an iterator result per code, some 0.7 KB a verdict (issue 41).
  for (let i = 0; i < OVERRIDE_PRIORITY.length; i++) {
    const code = OVERRIDE_PRIORITY[i]!;
    const words = CHECKS[code](input, d);
    if (words !== null) fired.push({ code, reason: reason(code, words) });
  }
  return fired;
}
