// Turns stored audit lines (a log file, or lines read from a store) into transferable chunks for the pool.
import { open } from 'node:fs/promises';
import type { Chunk } from './verify-pool.js';

const NEWLINE = 0x0a;
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** A buffer over the whole of its own ArrayBuffer (never a slice of Node's pool), so it can be transferred. */
type OwnedBuffer = Buffer & { buffer: ArrayBuffer };

function ownedBuffer(size: number): OwnedBuffer {
  return Buffer.allocUnsafeSlow(size) as OwnedBuffer;
}

/**
 * Blocks the pool has sent back, reused for the next reads: a fresh multi-megabyte
 * block per read would fault in (and have the kernel zero) new pages every time.
 */
export class SpareBlocks {
  private readonly spare: ArrayBuffer[] = [];

  take(size: number): OwnedBuffer {
    const reused = this.spare.pop();
    return reused !== undefined && reused.byteLength >= size ? (Buffer.from(reused) as OwnedBuffer) : ownedBuffer(size);
  }

  give(buffer: ArrayBuffer): void {
    if (this.spare.length < 8) this.spare.push(buffer);
  }
}

/**
 * Reads a log file front to back in large blocks, each cut after its last newline;
 * the partial line left over starts the next block. A line longer than a block
 * (only a damaged file has one) grows the next block until it fits.
 */
export async function* fileChunks(
  path: string, chunkBytes = DEFAULT_CHUNK_BYTES, blocks = new SpareBlocks(),
): AsyncGenerator<Chunk> {
  const fh = await open(path, 'r');
  try {
    let carry = Buffer.alloc(0);
    for (;;) {
      const block = blocks.take(Math.max(chunkBytes, carry.length * 2));
      carry.copy(block);
      const { bytesRead } = await fh.read(block, carry.length, block.length - carry.length, null);
      const filled = carry.length + bytesRead;
      if (bytesRead === 0) {
        if (filled > 0) yield { buffer: block.buffer, length: filled };
        return;
      }
      const cut = block.lastIndexOf(NEWLINE, filled - 1) + 1;
      carry = Buffer.from(block.subarray(cut, filled));
      if (cut > 0) yield { buffer: block.buffer, length: cut };
    }
  } finally {
    await fh.close();
  }
}

/** Packs lines (without newlines) into chunks of `perChunk` lines, each newline-terminated. */
export function* lineChunks(lines: Uint8Array[], perChunk: number): Generator<Chunk> {
  for (let first = 0; first < lines.length; first += perChunk) {
    const group = lines.slice(first, first + perChunk);
    const block = ownedBuffer(group.reduce((sum, line) => sum + line.length + 1, 0));
    let at = 0;
    for (const line of group) {
      block.set(line, at);
      at += line.length;
      block[at++] = NEWLINE;
    }
    yield { buffer: block.buffer, length: at };
  }
}

/** Lines per chunk so a batch of `count` lines keeps every thread busy without tiny tasks. */
export function linesPerChunk(count: number, threads: number): number {
  return Math.min(8192, Math.max(64, Math.ceil(count / threads)));
}
