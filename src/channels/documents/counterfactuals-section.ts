// The methodology's "Counterfactuals" section: what a warn or deny verdict says would make it an allow.
import { TIER_THRESHOLDS } from '../../risk/tiers.js';
import { THRESHOLDS } from '../../risk/weights.js';

export function counterfactualsSection(): string {
  const tiers = [...TIER_THRESHOLDS].reverse().map((t) => `Tier ${t.tier}: ${t.minTokens.toLocaleString('en-US')} tokens`).join(', ');
  return [
    '## Counterfactuals',
    '',
    'A `warn` or `deny` verdict also says what would make the same trade an `allow`. Each field below is present only',
    'when the engine computed it exactly from the facts of this evaluation, by re-scoring the trade itself in the',
    'scoring threads; none is an estimate, none appears on an `allow` or on a response with `error`, and identical',
    'inputs give identical fields.',
    '',
    '- `max_allowed_amount`: the largest `amount` (token units, on the asset\'s base-unit grid of 10^-decimals) that the',
    '  same request with the same facts would `allow` at this tier, or `null` when no amount would (a fake token, an',
    '  unregistered or blocked asset, a danger flag, a passed deadline, a score that does not depend on size). It is found',
    '  by bisection over base units, every point scored by the engine: the answer is allowed, the next base unit is not.',
    '  Amounts travel as JSON numbers (IEEE doubles), which cannot hold every 18-decimal amount: the number written is the',
    '  answer as the service reads it, and any amount the service reads as larger is not allowed. The engine is monotone',
    '  in amount (every size rule is "notional above a threshold"); a test holds it to that.',
    `- \`tier_needed\`: \`{tier, min_tokens}\`, the lowest tier above the wallet's entitlement whose ceiling would allow the`,
    `  same request with the same facts, and the service-token holdings that grant it (${tiers}).`,
    `- \`retry_after_seconds\`: when the per-wallet window weighed in (${THRESHOLDS.windowShare * 100}% of its evaluations used), the`,
    '  whole seconds until enough of its oldest evaluations leave the sliding window that a next one no longer weighs in.',
    '  A window that refuses outright answers HTTP 429 with `Retry-After` instead of a verdict (MCP: the error says when).',
    '- `next_market_open`: when the NYSE regular session is closed (an advisory that adds to the score), the Unix time in',
    '  seconds of the next 09:30 America/New_York open, from the same calendar: weekends, exchange holidays, unscheduled',
    '  closures and 13:00 early closes.',
    '',
  ].join('\n');
}
