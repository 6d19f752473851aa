// Attaches a signed TradePermit to an `allow` verdict whose request asked for one.
import type { RiskInput } from '../../risk/types.js';
import type { Verdict } from '../../schemas/trade.js';
import { signTradePermit, type PermitSettings } from './trade-permit.js';

/**
 * Only `allow` earns a permit; `warn` and `deny` never carry one. The permit names the audit record
 * already written, so it is signed after the append; the token is the registry's address, which an
 * `allow` (no fake token, a known price) always has.
 */
export async function withPermit(settings: PermitSettings, input: RiskInput, verdict: Verdict): Promise<Verdict> {
  if (verdict.decision !== 'allow' || verdict.audit_seq === null || verdict.audit_hash === null) return verdict;
  const asset = input.registryBySymbol;
  if (asset === null) throw new Error('an allowed trade has no registry entry to name in its permit');
  const permit = await signTradePermit(settings, {
    wallet: input.trade.wallet,
    token: asset.contract_address,
    side: input.trade.side,
    amount: input.trade.amount,
    decimals: asset.decimals,
    notionalUsd: verdict.calculated_notional_usd,
    auditSeq: verdict.audit_seq,
    auditHash: verdict.audit_hash.replace(/^0x/, ''),
    nowMs: input.nowMs,
  });
  return { ...verdict, permit };
}
