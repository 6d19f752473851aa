// The audit record of a change of a wallet's limits: who changed what, so an auditor sees when a budget was raised.
import type { AuditEntry } from '../../audit/record/audit-log.js';
import { limitsChange, limitsToWire } from '../../facts/wallet/wallet-limits.js';
import type { WalletLimits } from '../../risk/types.js';

/** The reason code a limits-change record carries; it is no verdict's, so replay finds no facts to judge. */
export const LIMITS_CHANGED = 'POLICY_LIMITS_CHANGED';

/**
 * ARCHITECTURE.md "Fleet limits": channel `config`, in the wallet's own chain, decision `allow`
 * (the change was applied), the limits before and after in `request` and in words in `reasons`.
 */
export function limitsChangeEntry(wallet: string, changedBy: string, tier: number, before: WalletLimits | null, after: WalletLimits | null): AuditEntry {
  return {
    wallet,
    channel: 'config',
    request: { limits_change: { changed_by: changedBy, before: limitsToWire(before), after: limitsToWire(after) } },
    decision: 'allow',
    risk_score: 0,
    reasons: [`${LIMITS_CHANGED}: ${changedBy} set ${limitsChange(before, after)}`],
    tier,
    price_usd: 0,
    price_source: 'none',
  };
}
