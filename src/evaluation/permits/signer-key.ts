// The key that signs trade permits: PERMIT_SIGNER_KEY, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

const FILE_NAME = 'permit-signer-key';
const KEY_PATTERN = /^0x[0-9a-f]{64}$/;

/**
 * Without PERMIT_SIGNER_KEY the key is generated on first start and kept (mode 0600), so the
 * address the discovery documents publish, and that guards trust, survives a restart. Instances
 * behind one guard must share the key: set PERMIT_SIGNER_KEY for them.
 */
export async function loadPermitSigner(configured: string | null, dataDir: string): Promise<PrivateKeyAccount> {
  if (configured) return privateKeyToAccount(configured.toLowerCase() as Hex);
  const path = join(dataDir, FILE_NAME);
  try {
    await writeFile(path, `0x${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stored = (await readFile(path, 'utf8')).trim();
  if (!KEY_PATTERN.test(stored)) throw new Error(`${path} is not a 0x-prefixed 64-digit hex key; remove it or set PERMIT_SIGNER_KEY`);
  return privateKeyToAccount(stored as Hex);
}
