// The checkpoint signing key: AUDIT_SIGNING_KEY, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';
import { CheckpointSigner } from './checkpoint.js';

const FILE_NAME = 'audit-signing-key';

/**
 * The key is a 32-byte Ed25519 seed, base64. Without AUDIT_SIGNING_KEY it is generated on
 * first start and kept (mode 0600), so checkpoints signed before a restart verify after it.
 * Instances sharing a Redis audit chain must share the key: set AUDIT_SIGNING_KEY for them
 * (the shared chain refuses a second key, see src/audit/redis/redis-checkpoints.ts). `kept` gives
 * the text DATA_DIR keeps, or a generated one it will keep (src/assembly/generated-keys.ts).
 */
export async function loadCheckpointSigner(
  configured: string | null, kept: (name: string, generate: () => string) => Promise<{ text: string; path: string }>,
): Promise<CheckpointSigner> {
  if (configured) return new CheckpointSigner(seedOf(configured, 'AUDIT_SIGNING_KEY'));
  const { text, path } = await kept(FILE_NAME, () => randomBytes(32).toString('base64'));
  return new CheckpointSigner(seedOf(text, path));
}

function seedOf(text: string, where: string): Buffer {
  const seed = Buffer.from(text, 'base64');
  if (seed.length !== 32 || seed.toString('base64') !== text) throw new Error(`${where} is not a base64 32-byte Ed25519 key`);
  return seed;
}
