// Pages of the wallet-head table (4 KiB): a slot count, the next overflow page, and 73 slots of 56 bytes.
//
// A page: u16 slot count, u16 unused, u32 next overflow page (0: none), then slots of
// a 16-byte wallet key, a 6-byte line position, 2 unused bytes and the 32-byte record hash.
import { readSync, writeSync } from 'node:fs';

export const PAGE = 4096;
export const PAGE_HEAD = 8;
export const SLOT = 56;
export const SLOTS = 73;
export const KEY_BYTES = 16;
export const POS_AT = 16;
export const HASH_AT = 24;

/** A page read at `position`; past the end of the file, an empty page. */
export function readPage(fd: number, position: number): Buffer {
  const page = Buffer.allocUnsafe(PAGE);
  let got = 0;
  while (got < PAGE) {
    const n = readSync(fd, page, got, PAGE - got, position + got);
    if (n === 0) break;
    got += n;
  }
  page.fill(0, got);
  return page;
}

export function writeAll(fd: number, data: Buffer, position: number): void {
  for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done, position + done);
}

/** Byte offset of the key's slot in the page, or -1. Comparing the first 4 bytes first skips most slots cheaply. */
export function findSlot(page: Buffer, key: Buffer): number {
  const count = page.readUInt16LE(0);
  const first = key.readUInt32LE(0);
  for (let i = 0, at = PAGE_HEAD; i < count; i++, at += SLOT) {
    if (page.readUInt32LE(at) === first && page.compare(key, 0, KEY_BYTES, at, at + KEY_BYTES) === 0) return at;
  }
  return -1;
}

export function setSlot(page: Buffer, at: number, pos: number, hash: Buffer): void {
  page.writeUIntLE(pos, at + POS_AT, 6);
  hash.copy(page, at + HASH_AT, 0, 32);
}

/** Adds a slot for a key the page does not hold; the caller checked there is room. */
export function addSlot(page: Buffer, key: Buffer, pos: number, hash: Buffer): void {
  const count = page.readUInt16LE(0);
  const at = PAGE_HEAD + count * SLOT;
  key.copy(page, at, 0, KEY_BYTES);
  setSlot(page, at, pos, hash);
  page.writeUInt16LE(count + 1, 0);
}

/** Adds a whole slot taken from another page (a split moving it). */
export function copySlot(page: Buffer, slot: Buffer): void {
  const count = page.readUInt16LE(0);
  slot.copy(page, PAGE_HEAD + count * SLOT);
  page.writeUInt16LE(count + 1, 0);
}

/** The bucket-address bits of a key (or of the key in a slot at `at`): its first 48 bits. */
export const keyNumber = (key: Buffer, at = 0) => key.readUIntLE(at, 6);

/** Pages read at once by forEachSlot: 1 MiB. */
const SCAN_PAGES = 256;

/** Calls `visit` with every slot of every page in the file from byte `from` on, reading 1 MiB at a time. */
export function forEachSlot(fd: number, from: number, visit: (page: Buffer, at: number) => void): void {
  const chunk = Buffer.allocUnsafe(SCAN_PAGES * PAGE);
  for (let position = from; ;) {
    const got = readSync(fd, chunk, 0, chunk.length, position);
    const pages = Math.floor(got / PAGE);
    for (let p = 0; p < pages; p++) {
      const base = p * PAGE;
      const count = Math.min(chunk.readUInt16LE(base), SLOTS);
      for (let i = 0; i < count; i++) visit(chunk, base + PAGE_HEAD + i * SLOT);
    }
    if (pages === 0) return;
    position += pages * PAGE;
  }
}
