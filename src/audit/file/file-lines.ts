// Reads a file's lines front to back a block at a time, so memory stays the same however long the file grows.
import type { FileHandle } from 'node:fs/promises';

const NEWLINE = 0x0a;
const BLOCK_BYTES = 1 << 20;

export interface FileLine {
  /** The line without its newline; valid only until the next line is asked for. */
  bytes: Buffer;
  /** Byte offset of its first byte in the file. */
  offset: number;
  /** 1-based. */
  number: number;
  /** False only for a last line that no newline ends (a write torn by a crash). */
  ended: boolean;
}

/**
 * Every line of the file behind `fh`, in order. Each block is scanned once and a line that spans two
 * blocks is the only thing copied, so the work is linear in the file's length.
 */
export async function* fileLines(fh: FileHandle, blockBytes = BLOCK_BYTES): AsyncGenerator<FileLine> {
  const block = Buffer.allocUnsafe(blockBytes);
  let pending = Buffer.alloc(0);
  let pendingAt = 0;
  let position = 0;
  let number = 0;
  for (;;) {
    const { bytesRead } = await fh.read(block, 0, block.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = pending.length > 0 ? Buffer.concat([pending, block.subarray(0, bytesRead)]) : block.subarray(0, bytesRead);
    let start = 0;
    for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
      yield { bytes: data.subarray(start, newline), offset: pendingAt + start, number: ++number, ended: true };
      start = newline + 1;
    }
    // Copied: the block is read into again.
    pending = Buffer.from(data.subarray(start));
    pendingAt += start;
  }
  if (pending.length > 0) yield { bytes: pending, offset: pendingAt, number: ++number, ended: false };
}
