// Piscina task module: re-hashes one chunk of stored audit lines and reads their seqs and links.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { scanChunk } from '../src/audit/verify/chunk-scan.js';
import { createSha256Digest, opensslSha256Digest, type Sha256Digest } from '../src/audit/record/sha256.js';
import type { Hasher, VerifyResult, VerifyTask } from '../src/audit/verify/verify-pool.js';

// One hash-wasm instance per thread: it is not re-entrant, and each thread runs one task at a time.
const digests: Record<Hasher, Sha256Digest> = {
  'hash-wasm': await createSha256Digest(),
  'node:crypto': opensslSha256Digest,
};

// Piscina calls the default export. The chunk arrived transferred; the scan's columns
// and the chunk itself go back transferred too, so no record bytes are copied.
export default function verifyChunk(task: VerifyTask) {
  const scan = scanChunk(new Uint8Array(task.buffer, 0, task.length), task.field, digests[task.hasher]);
  const result: VerifyResult = { ...scan, buffer: task.buffer, length: task.length };
  return move({
    [transferableSymbol]: [scan.seqs.buffer, scan.flags.buffer, scan.starts.buffer, task.buffer],
    [valueSymbol]: result,
  } as never);
}

// Each thread answers the pool's start check (src/threads/thread-start.ts).
export { arrive } from '../src/threads/arrive.js';
