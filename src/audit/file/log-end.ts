// Where audit.log truly ends: judged at open (torn write or damage), re-established before appends resume after a failed write.
import type { FileHandle } from 'node:fs/promises';
import { ZERO_HASH } from '../record/audit-log.js';
import { lineHashMatches } from '../record/record.js';
import { sha256Hex } from '../record/sha256.js';
import { newestCheckpointSize } from './file-checkpoints.js';
import { findGoodEnd } from './file-scan.js';
import { lastNewlineBefore, readAt } from './file-lines.js';
import { AuditTailDamaged, judgeTail, type TailJudgement } from './tail-evidence.js';

export interface JudgedTail {
  /** Where the good part ends; bytes after it were never acknowledged (or their loss was accepted). */
  end: number;
  reasons: string[];
  /** The damage an operator accepted with AUDIT_ACCEPT_LOSS; its seqs get loss markers. */
  accepted: Extract<TailJudgement, { kind: 'damaged' }> | null;
}

/**
 * ARCHITECTURE.md "Damage is not a torn tail": reads the evidence before anything is changed, so a
 * refused start leaves every file as it was for the operator (and for the next attempt).
 * `indexed` is how many lines the index holds; `acceptLoss` is the first lost seq an operator
 * accepts; any other damage still refuses.
 */
export async function judgeFileTail(
  dir: string, path: string, fh: FileHandle, size: number, indexed: number, acceptLoss: number | null,
): Promise<JudgedTail> {
  const { end, reasons, lastGoodSeq } = await findGoodEnd(fh, size, sha256Hex);
  const checkpointed = await newestCheckpointSize(dir);
  const judgement = judgeTail({ lastGoodSeq, indexed, checkpointed });
  if (judgement.kind === 'torn') return { end, reasons, accepted: null };
  if (acceptLoss !== judgement.firstSeq) throw new AuditTailDamaged(judgement, path);
  return { end, reasons: [...reasons, `the loss of records ${judgement.firstSeq}..${judgement.lastSeq} was accepted (AUDIT_ACCEPT_LOSS)`], accepted: judgement };
}

/**
 * After a failed write: the file must end exactly at `end` with the record whose hash is
 * `lastHash`. Bytes past `end` are what the failed group left (never acknowledged) and are cut;
 * a shorter file, or another last record, is not the log this process wrote, and it throws.
 */
export async function reestablishEnd(fh: FileHandle, end: number, lastHash: string): Promise<void> {
  const size = Number((await fh.stat({ bigint: true })).size);
  if (size < end) throw new Error(`audit.log is ${size} bytes, shorter than the ${end} acknowledged`);
  if (size > end) await fh.truncate(end);
  if (end === 0) {
    if (lastHash !== ZERO_HASH) throw new Error('audit.log is empty but records were acknowledged');
    return;
  }
  const start = (await lastNewlineBefore(fh, end - 1)) + 1;
  const line = await readAt(fh, start, end - start - 1);
  if (line.toString('latin1', 0, 64) !== lastHash || !lineHashMatches(line, sha256Hex)) {
    throw new Error('audit.log does not end with the last acknowledged record');
  }
}
