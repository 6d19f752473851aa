// The HS256 signing secret: JWT_SECRET, or one generated once and kept in DATA_DIR.
import { randomBytes } from 'node:crypto';

const FILE_NAME = 'jwt-secret';

/**
 * Without JWT_SECRET the secret is generated on first start and kept (mode 0600),
 * so tokens survive a restart. Two instances that share tokens must share the
 * secret: set JWT_SECRET for them. `kept` gives the text DATA_DIR keeps, or a
 * generated one it will keep (src/assembly/generated-keys.ts).
 */
export async function loadJwtSecret(
  configured: string | null, kept: (name: string, generate: () => string) => Promise<{ text: string; path: string }>,
): Promise<Uint8Array> {
  if (configured) return new TextEncoder().encode(configured);
  const { text, path } = await kept(FILE_NAME, () => randomBytes(32).toString('hex'));
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${path} is not a 64-digit hex secret; remove it or set JWT_SECRET`);
  return new TextEncoder().encode(text);
}
