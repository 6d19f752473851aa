// The handover record: the first record a chain takes after its DATA_DIR moved to other audit settings, naming where
// every chain of the old settings ended, so the new chain links to the old one (ARCHITECTURE.md "DATA_DIR epoch"). Pure.
import type { OldChainEnds } from './proof/audit-backend.js';
import type { AuditEntry } from './record/audit-log.js';
import { partitionOf } from './record/partition.js';

export const HANDOVER_REASON_CODE = 'AUDIT_CHAIN_HANDOVER';

/** The settings and epoch of the chains handed over. */
export interface HandoverFrom {
  epoch: string;
  audit_store: string;
  audit_partitions: number;
}

/**
 * The wallet of chain p's handover record: the first of `audit-log`, `audit-log.1`, `audit-log.2` ... that partitionOf puts
 * in chain p, so the rule that a wallet fixes its chain holds for these records too. Not an address, as the loss
 * markers' `audit-log` is not: no caller's records share its links.
 */
export function handoverWallet(chain: number, partitions: number): string {
  for (let n = 0; ; n++) {
    const wallet = n === 0 ? 'audit-log' : `audit-log.${n}`;
    if (partitionOf(wallet, partitions) === chain) return wallet;
  }
}

/**
 * One handover entry per chain of the new settings (`partitions` of them), each naming every old chain's end. `unread`
 * is set instead of the ends when the operator declared the old chain gone (DATA_DIR_OLD_CHAIN_GONE): the record then
 * says the link is unknown and why, rather than leaving no trace of the move.
 */
export function handoverEntries(
  from: HandoverFrom, epoch: string, partitions: number, old: OldChainEnds | { unread: string }, atMs: number,
): AuditEntry[] {
  const ends = 'unread' in old ? { unread: old.unread } : { chains: old.chains, checkpoint: old.checkpoint };
  const named = 'unread' in old
    ? `its end could not be read (${old.unread}) and an operator declared it gone`
    : old.chains.map((end) => `chain ${end.chain} ended at seq ${end.final_seq}`).join(', ');
  return Array.from({ length: partitions }, (_, chain) => ({
    wallet: handoverWallet(chain, partitions),
    channel: 'audit',
    request: {
      chain_handover: { from: { ...from, ...ends }, to: { epoch, partitions, chain }, at: new Date(atMs).toISOString() },
    },
    decision: 'error',
    risk_score: 100,
    reasons: [`${HANDOVER_REASON_CODE}: this chain continues the audit chains of epoch ${from.epoch} ` +
      `(AUDIT_STORE=${from.audit_store} AUDIT_PARTITIONS=${from.audit_partitions}): ${named}`],
    tier: 0,
    price_usd: 0,
    price_source: 'none',
  }));
}
