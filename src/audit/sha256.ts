// SHA-256 over audit-record bytes with hash-wasm, initialized once, then synchronous.
import { createSHA256, type IHasher } from 'hash-wasm';

/** Bytes in, 64 lower-case hex characters out. Strings are hashed as UTF-8. */
export type Sha256Hex = (bytes: Uint8Array | string) => string;

let shared: Sha256Hex | undefined;

/**
 * Builds an independent synchronous hasher around its own WebAssembly instance.
 * Each worker thread of the verification pool calls this once at start-up; one
 * instance is not re-entrant, so two threads must never share it.
 */
export async function createSha256Hex(): Promise<Sha256Hex> {
  const hasher: IHasher = await createSHA256();
  return (bytes) => hasher.init().update(bytes).digest('hex');
}

/** Bytes in, the 32-byte SHA-256 digest out (a fresh copy); verification compares it with stored hex. */
export type Sha256Digest = (bytes: Uint8Array) => Uint8Array;

/** Like createSha256Hex, but without building a hex string per record: for the verification hot path. */
export async function createSha256Digest(): Promise<Sha256Digest> {
  const hasher: IHasher = await createSHA256();
  return (bytes) => hasher.init().update(bytes).digest('binary');
}

/** Loads the process-wide hasher; safe to call more than once. */
export async function initSha256(): Promise<void> {
  shared ??= await createSha256Hex();
}

/** The process-wide hasher; initSha256() must have resolved first. */
export function sha256Hex(bytes: Uint8Array | string): string {
  if (!shared) throw new Error('sha256Hex called before initSha256() resolved');
  return shared(bytes);
}
