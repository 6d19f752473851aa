// The key that signs trade permits: PERMIT_SIGNER_KEY, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

const FILE_NAME = 'permit-signer-key';
const KEY_PATTERN = /^0x[0-9a-f]{64}$/;

/**
 * Without PERMIT_SIGNER_KEY the key is generated on first start and kept (mode 0600), so the
 * address the discovery documents publish, and that guards trust, survives a restart. Instances
 * behind one guard must share the key: set PERMIT_SIGNER_KEY for them. `kept` gives the text
 * DATA_DIR keeps, or a generated one it will keep (src/assembly/generated-keys.ts).
 */
export async function loadPermitSigner(
  configured: string | null, kept: (name: string, generate: () => string) => Promise<{ text: string; path: string }>,
): Promise<PrivateKeyAccount> {
  if (configured) return privateKeyToAccount(configured.toLowerCase() as Hex);
  const { text, path } = await kept(FILE_NAME, () => `0x${randomBytes(32).toString('hex')}`);
  if (!KEY_PATTERN.test(text)) throw new Error(`${path} is not a 0x-prefixed 64-digit hex key; remove it or set PERMIT_SIGNER_KEY`);
  return privateKeyToAccount(text as Hex);
}
