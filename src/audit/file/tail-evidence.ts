// Whether the bad end of audit.log is a torn write or damage to acknowledged records, and the loss markers an operator's decision writes.
//
// ARCHITECTURE.md "Damage is not a torn tail": a torn write can only be a record that was never
// acknowledged. Only bytes after the last complete, newline-terminated, hash-valid line are
// candidates, and only when nothing written after an acknowledgement vouches for them: the
// LMDB index gets a line's entry only after the line was written (and, under
// AUDIT_FSYNC=always, synced), and a signed checkpoint covers only records already written.
// facts.log vouches for nothing: a group's facts are written before its records.
import type { AuditEntry } from '../record/audit-log.js';

export interface TailEvidence {
  /** Seq of the last complete, newline-terminated, hash-valid line; 0 when there is none. */
  lastGoodSeq: number;
  /** Lines the index (DATA_DIR/audit/index) holds entries for. */
  indexed: number;
  /** Tree size of the newest signed checkpoint in checkpoints.log; 0 without one. */
  checkpointed: number;
}

export type TailJudgement =
  | { kind: 'torn' }
  | { kind: 'damaged'; firstSeq: number; lastSeq: number; vouchedBy: string };

/** The wallet of loss markers: not an address, so no caller's records ever share its chain. */
export const LOSS_WALLET = 'audit-log';
export const LOSS_REASON_CODE = 'AUDIT_RECORD_LOST';

/** Pure: the records after the last good line are damage when the index or a checkpoint vouches for them. */
export function judgeTail(evidence: TailEvidence): TailJudgement {
  const vouched = Math.max(evidence.indexed, evidence.checkpointed);
  if (vouched <= evidence.lastGoodSeq) return { kind: 'torn' };
  const vouchedBy = evidence.checkpointed >= evidence.indexed
    ? `a signed checkpoint covers ${evidence.checkpointed} records`
    : `the index (audit/index) holds ${evidence.indexed} records`;
  return { kind: 'damaged', firstSeq: evidence.lastGoodSeq + 1, lastSeq: vouched, vouchedBy };
}

/** The one message a refused start prints: the first damaged seq, why it is not a torn write, and what to do. */
export function damageMessage(judgement: Extract<TailJudgement, { kind: 'damaged' }>, path: string): string {
  const { firstSeq, lastSeq, vouchedBy } = judgement;
  const range = firstSeq === lastSeq ? `record ${firstSeq} was` : `records ${firstSeq}..${lastSeq} were`;
  return `${path}: record ${firstSeq} is damaged or missing, and ${vouchedBy}, so ${range} acknowledged: ` +
    'this is not a torn write, and an acknowledged seq is never issued again. Restore the file from a copy that holds ' +
    `seq ${firstSeq}..${lastSeq}, or accept losing them: start once with AUDIT_ACCEPT_LOSS=${firstSeq} ` +
    '(each lost seq then holds a loss marker record in the chain, so verification covers the decision)';
}

/** One marker per lost seq, so line n still holds seq n and no lost seq is ever sealed for a verdict. */
export function lossMarkers(firstSeq: number, lastSeq: number, acceptedAtMs: number): AuditEntry[] {
  return Array.from({ length: lastSeq - firstSeq + 1 }, (_, i) => ({
    wallet: LOSS_WALLET,
    channel: 'audit',
    request: { accepted_loss: { first_seq: firstSeq, last_seq: lastSeq, accepted_at: new Date(acceptedAtMs).toISOString() } },
    decision: 'error',
    risk_score: 100,
    reasons: [`${LOSS_REASON_CODE}: record ${firstSeq + i} was acknowledged and then lost from audit.log; an operator accepted the loss (AUDIT_ACCEPT_LOSS=${firstSeq})`],
    tier: 0,
    price_usd: 0,
    price_source: 'none',
  }));
}

/** Thrown by open: the service must not start on this log until an operator decides. */
export class AuditTailDamaged extends Error {
  override name = 'AuditTailDamaged';
  constructor(readonly judgement: Extract<TailJudgement, { kind: 'damaged' }>, path: string) {
    super(damageMessage(judgement, path));
  }
}
