// SHA-256 over audit-record bytes: OpenSSL for the event loop, hash-wasm for the verification threads.
import * as crypto from 'node:crypto';
import type { IHasher } from 'hash-wasm';

/**
 * A hash-wasm SHA-256 instance. hash-wasm is imported here, on the first call, not with this module: it carries
 * every algorithm it offers as inline WebAssembly, about 0.1 s of CPU to load, and only the verification threads use it.
 */
async function wasmSha256(): Promise<IHasher> {
  const { createSHA256 } = await import('hash-wasm');
  return createSHA256();
}

/** Bytes in, 64 lower-case hex characters out. Strings are hashed as UTF-8. */
export type Sha256Hex = (bytes: Uint8Array | string) => string;

/**
 * Builds an independent synchronous hasher around its own WebAssembly instance.
 * Each worker thread of the verification pool calls this once at start-up; one
 * instance is not re-entrant, so two threads must never share it.
 */
export async function createSha256Hex(): Promise<Sha256Hex> {
  const hasher: IHasher = await wasmSha256();
  return (bytes) => hasher.init().update(bytes).digest('hex');
}

/** Bytes in, the 32-byte SHA-256 digest out (a fresh copy); verification compares it with stored hex. */
export type Sha256Digest = (bytes: Uint8Array) => Uint8Array;

/** Like createSha256Hex, but without building a hex string per record: for the verification hot path. */
export async function createSha256Digest(): Promise<Sha256Digest> {
  const hasher: IHasher = await wasmSha256();
  return (bytes) => hasher.init().update(bytes).digest('binary');
}

/** Character codes that may appear in a SHA-256 as stored: 0-9 and a-f. */
const LOWER_HEX = new Uint8Array(128);
for (const digit of '0123456789abcdef') LOWER_HEX[digit.charCodeAt(0)] = 1;

/**
 * Whether `text` is a SHA-256 as records write one: 64 lower-case hex digits. A loop over the
 * characters: half the time of the equivalent regex test, and every append checks two (issue 30:
 * "hex checks without regexes").
 */
export function isSha256Hex(text: string): boolean {
  if (text.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    // Past the table (a code above 127) the lookup is undefined, which is not 1 either.
    if (LOWER_HEX[text.charCodeAt(i)] !== 1) return false;
  }
  return true;
}

/** crypto.hash() is Node 20.12+; createHash is the same OpenSSL digest with more set-up per call. */
export const opensslOneShot = typeof crypto.hash === 'function';

/**
 * The process-wide hasher for sealing appends and checking single lines. Every
 * append hashes once on the event loop, where OpenSSL (SHA extensions where the CPU
 * has them) takes about 1.5 us for a 700-byte record against hash-wasm's 5 to 6.
 * Same function, same digest: a record sealed here verifies with either.
 */
export function sha256Hex(bytes: Uint8Array | string): string {
  return opensslOneShot ? crypto.hash('sha256', bytes, 'hex') : crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * OpenSSL's digest as a binary string (32 characters, one byte each): Node 20's crypto.hash() hands
 * one back about 0.5 us sooner than a Buffer, about what OpenSSL spends hashing a 1 KB record.
 */
export function sha256Binary(bytes: Uint8Array): string {
  return opensslOneShot ? crypto.hash('sha256', bytes, 'binary') : crypto.createHash('sha256').update(bytes).digest('binary');
}

/**
 * OpenSSL's digest in a Buffer: the file index's wallet keys and the partition of a wallet, one hash each per record.
 * Copied out of the binary string into a Buffer from Node's pool: crypto.hash()'s own 'buffer' output allocates a
 * fresh backing store per call, 1.9-2.6 us for a wallet's 42 characters where this takes 0.9-1.1 (a 300,000-call loop,
 * process.cpuUsage(), three rounds each).
 */
export function sha256Buffer(bytes: Uint8Array | string): Buffer {
  return opensslOneShot ? Buffer.from(crypto.hash('sha256', bytes, 'binary'), 'latin1') : crypto.createHash('sha256').update(bytes).digest();
}

/** OpenSSL's digest as bytes, copied out of sha256Binary: the verification pool's `node:crypto` hasher and the proof verifier's. */
export function opensslSha256Digest(bytes: Uint8Array): Uint8Array {
  const binary = sha256Binary(bytes);
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i++) digest[i] = binary.charCodeAt(i);
  return digest;
}
