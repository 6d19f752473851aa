// The HS256 signing secret: JWT_SECRET, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE_NAME = 'jwt-secret';

/**
 * Without JWT_SECRET the secret is generated on first start and kept (mode 0600),
 * so tokens survive a restart. Two instances that share tokens must share the
 * secret: set JWT_SECRET for them.
 */
export async function loadJwtSecret(configured: string | null, dataDir: string): Promise<Uint8Array> {
  if (configured) return new TextEncoder().encode(configured);
  const path = join(dataDir, FILE_NAME);
  const fresh = randomBytes(32).toString('hex');
  try {
    await writeFile(path, `${fresh}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stored = (await readFile(path, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(stored)) throw new Error(`${path} is not a 64-digit hex secret; remove it or set JWT_SECRET`);
  return new TextEncoder().encode(stored);
}
