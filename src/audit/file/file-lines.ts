// One module for the file backend's three line files (audit.log, facts.log, checkpoints.log): find the true end, cut a
// torn tail, append at the end, and read lines a block at a time by offset. Each file's own rules sit on top.
import type { FileHandle } from 'node:fs/promises';

const NEWLINE = 0x0a;
const BLOCK_BYTES = 1 << 20;
const BACK_BLOCK_BYTES = 64 * 1024;

export interface FileLine {
  /** The line without its newline; valid only until the next line is asked for. */
  bytes: Buffer;
  /** Byte offset of its first byte in the file. */
  offset: number;
  /** 1-based, counted from `from`. */
  number: number;
  /** False only for a last line that no newline ends (a write torn by a crash). */
  ended: boolean;
}

/** Up to `length` bytes at `position`; fewer only where the file ends. */
export async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Index of the last newline strictly before `end`, or -1; reads backwards a block at a time. */
export async function lastNewlineBefore(fh: FileHandle, end: number): Promise<number> {
  for (let to = end; to > 0; to -= BACK_BLOCK_BYTES) {
    const from = Math.max(0, to - BACK_BLOCK_BYTES);
    const at = (await readAt(fh, from, to - from)).lastIndexOf(NEWLINE);
    if (at !== -1) return from + at;
  }
  return -1;
}

/** The last newline-terminated line in the file's first `end` bytes, without its newline, and where it starts; null when none. */
export async function lastLineBefore(fh: FileHandle, end: number): Promise<{ start: number; bytes: Buffer } | null> {
  const newline = await lastNewlineBefore(fh, end);
  if (newline === -1) return null;
  const start = (await lastNewlineBefore(fh, newline)) + 1;
  return { start, bytes: await readAt(fh, start, newline - start) };
}

/** Writes all of `data` at `position` (a short write is continued); returns how many writes it took. */
export async function writeAllAt(fh: FileHandle, data: Buffer, position: number): Promise<number> {
  let writes = 0;
  for (let done = 0; done < data.length; writes++) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
  return writes;
}

/**
 * Cuts bytes after the last newline (a write a crash cut short, never acknowledged) and syncs the cut;
 * returns the end of the last whole line.
 */
export async function cutTornTail(fh: FileHandle): Promise<number> {
  const { size } = await fh.stat();
  const end = (await lastNewlineBefore(fh, size)) + 1;
  await cutAt(fh, end, size);
  return end;
}

/** Cuts a file of `size` bytes back to `end` and syncs the cut (nothing when there is nothing past `end`). */
export async function cutAt(fh: FileHandle, end: number, size: number): Promise<void> {
  if (end >= size) return;
  await fh.truncate(end);
  await fh.datasync();
}

/**
 * Every line of the file behind `fh` from byte `from` on, in order. Each block is scanned once and a
 * line that spans two blocks is the only thing copied, so the work is linear in the file's length and
 * no string of the whole file is ever made.
 */
export async function* fileLines(fh: FileHandle, blockBytes = BLOCK_BYTES, from = 0): AsyncGenerator<FileLine> {
  const block = Buffer.allocUnsafe(blockBytes);
  let pending = Buffer.alloc(0);
  let pendingAt = from;
  let position = from;
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
