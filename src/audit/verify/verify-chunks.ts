// Runs a stream of chunks through the pool, several at once, and walks the results in stored order.
import { ChainWalker, GENESIS, type ChainAnchor, type ChainEnd, type ScannedChunk, type VerifyReport } from './chain-walk.js';
import type { LinkField } from './chunk-scan.js';
import type { Chunk, VerifyPool } from './verify-pool.js';

export interface VerifyChunksOptions {
  field: LinkField;
  /** What the first record links to; default: the start of a chain. */
  anchor?: ChainAnchor;
  /** When given (global form), the chain must reach this record: the store's head, or a receipt. */
  head?: ChainEnd;
  maxProblems?: number;
  /** After each chunk is walked: records and bytes so far (progress bars). */
  onProgress?: (done: { records: number; bytes: number }) => void;
  /** Receives each chunk's buffer once walked, for the source to reuse (see SpareBlocks). */
  recycle?: (buffer: ArrayBuffer) => void;
}

/**
 * Chunks are scanned in parallel; at most two per thread are in flight, so memory
 * stays bounded however long the chain. Only the in-order walk, a few comparisons
 * per record, runs on this thread.
 */
export async function verifyChunks(
  pool: VerifyPool,
  chunks: AsyncIterable<Chunk> | Iterable<Chunk>,
  options: VerifyChunksOptions,
): Promise<VerifyReport> {
  const walker = new ChainWalker(options.field, options.anchor ?? GENESIS, options.head, options.maxProblems);
  const inFlight: Array<Promise<ScannedChunk>> = [];
  let bytes = 0;
  const walkNext = async () => {
    const scanned = await inFlight.shift()!;
    walker.add(scanned);
    bytes += scanned.bytes.length;
    options.recycle?.(scanned.bytes.buffer as ArrayBuffer);
    options.onProgress?.({ records: walker.checked, bytes });
  };
  for await (const chunk of chunks) {
    const scan = pool.scan(chunk, options.field);
    // Scans abandoned when an earlier one fails must not surface as unhandled rejections.
    scan.catch(() => undefined);
    inFlight.push(scan);
    if (inFlight.length >= pool.threads * 2) await walkNext();
  }
  while (inFlight.length > 0) await walkNext();
  return walker.finish();
}
