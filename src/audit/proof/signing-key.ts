// The checkpoint signing key: AUDIT_SIGNING_KEY, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointSigner } from './checkpoint.js';

const FILE_NAME = 'audit-signing-key';

/**
 * The key is a 32-byte Ed25519 seed, base64. Without AUDIT_SIGNING_KEY it is generated on
 * first start and kept (mode 0600), so checkpoints signed before a restart verify after it.
 * Instances sharing a Redis audit chain must share the key: set AUDIT_SIGNING_KEY for them
 * (the shared chain refuses a second key, see src/audit/redis/redis-checkpoints.ts).
 */
export async function loadCheckpointSigner(configured: string | null, dataDir: string): Promise<CheckpointSigner> {
  if (configured) return new CheckpointSigner(seedOf(configured, 'AUDIT_SIGNING_KEY'));
  const path = join(dataDir, FILE_NAME);
  try {
    await writeFile(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return new CheckpointSigner(seedOf((await readFile(path, 'utf8')).trim(), path));
}

function seedOf(text: string, where: string): Buffer {
  const seed = Buffer.from(text, 'base64');
  if (seed.length !== 32 || seed.toString('base64') !== text) throw new Error(`${where} is not a base64 32-byte Ed25519 key`);
  return seed;
}
