// Where the file chain ended, read from DATA_DIR/audit without opening it for writing: its last record and its latest
// signed checkpoint, for a new epoch's handover record (ARCHITECTURE.md "DATA_DIR epoch").
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import { parseCheckpoint } from '../proof/checkpoint-store.js';
import type { OldChainEnds } from '../proof/audit-backend.js';
import { ZERO_HASH } from '../record/audit-log.js';
import { lineHashMatches, parseLine } from '../record/record.js';
import { sha256Hex } from '../record/sha256.js';
import { AUDIT_FILE_NAME } from './file-audit-log.js';
import { CHECKPOINT_FILE_NAME } from './file-checkpoints.js';
import { lastLineBefore } from './file-lines.js';

/** The file log's one chain as it ended: a torn last line (never acknowledged) is passed over, as an open would cut it. */
export async function fileChainEnds(config: Readonly<Config>): Promise<OldChainEnds> {
  const dir = join(config.dataDir, 'audit');
  const path = join(dir, AUDIT_FILE_NAME);
  const last = await lastLine(path);
  let end = { chain: 0, final_seq: 0, final_hash: ZERO_HASH };
  if (last !== null) {
    if (!lineHashMatches(last, sha256Hex)) {
      throw new Error(`the last record of ${path} does not hash to the hash it starts with: verify the file log (npm run audit:verify -- ${config.dataDir})`);
    }
    const record = parseLine(last);
    end = { chain: 0, final_seq: record.seq, final_hash: record.hash };
  }
  const checkpointLine = await lastLine(join(dir, CHECKPOINT_FILE_NAME));
  const checkpoint = checkpointLine === null ? null : parseCheckpoint(checkpointLine.toString('utf8'));
  return { chains: [end], checkpoint: checkpoint as Record<string, unknown> | null };
}

/** The last newline-terminated line of a file, without its newline; null when the file is missing or holds none. */
async function lastLine(path: string): Promise<Buffer | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return (await lastLineBefore(fh, (await fh.stat()).size))?.bytes ?? null;
  } finally {
    await fh.close();
  }
}
