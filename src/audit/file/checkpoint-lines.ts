// Judges each stored line of checkpoints.log as it is read, and says what an operator does about a damaged one
// (ARCHITECTURE.md "Checkpoints and proofs"). Pure: the store reads the file, this decides.
import { checkCheckpoint, shapeFault, type Checkpoint, type PublishedKey } from '../proof/checkpoint.js';

export type CheckpointLineJudgement = { checkpoint: Checkpoint } | { fault: string };

/**
 * A sound line is a checkpoint of the right shape, signed by `key` as it reads, and larger than the line before it
 * (`previousSize`, 0 for the first): stored checkpoints only grow, each written after the one it extends. `key` null:
 * the line's bytes are ones whose signature was checked at an earlier start (the index's mark), so only its shape
 * and growth are judged again.
 */
export function judgeCheckpointLine(text: string, previousSize: number, key: PublishedKey | null): CheckpointLineJudgement {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { fault: 'it is not JSON' };
  }
  const fault = key === null ? shapeFault(value) : checkCheckpoint(value, key);
  if (fault) return { fault };
  const checkpoint = value as Checkpoint;
  if (checkpoint.tree_size <= previousSize) {
    return { fault: `its tree_size ${checkpoint.tree_size} is not above the ${previousSize} of the line before it` };
  }
  return { checkpoint };
}

/**
 * The fault of a last line that no newline ends, begun inside the bytes the index's mark shows were checked whole
 * (`markEnd`): a line is marked only after its write was synced, and then served, so the file was cut or overwritten
 * since, not torn by a crash, and the line is kept as found for the operator.
 */
export function cutInsideMark(markEnd: number): string {
  return `the file ends inside this line, though the audit index's mark shows that its first ${markEnd} bytes held whole ` +
    'checkpoint lines, checked and served (the file was cut or overwritten, not torn by a crash)';
}

/** Where a damaged line is: its number (1-based) and byte offset in the file. */
export interface DamagedLine {
  number: number;
  offset: number;
  fault: string;
}

/** The one sentence /status.json, the log and a refused proof give for a damaged checkpoints file. */
export function checkpointDamage(path: string, line: DamagedLine): string {
  return `${path} line ${line.number} (byte ${line.offset}) is damaged: ${line.fault}. Proofs and new checkpoints are off, ` +
    'since a checkpoint served from this file may not verify for the client. Restore the file from a copy (or start with ' +
    'the AUDIT_SIGNING_KEY that signed it, if the key changed) and restart; without a copy, move it aside and restart: ' +
    'a new file is begun, and checkpoints clients already hold can no longer be proved consistent with it';
}
