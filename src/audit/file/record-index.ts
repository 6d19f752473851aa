// The position index on disk (audit.idx): 16 bytes per record, read with positional reads, never held in memory.
//
// Header (128 bytes): magic, clean-close flag, the count of suspect lines found so far,
// the log's identity at the last clean close (size, mtime in ns, inode) and the boot
// that last wrote the index. Entry for line position p (1-based; line p normally holds
// seq p) at byte 128 + (p - 1) * 16: the line's 6-byte offset in audit.log, its 4-byte
// length with the newline, and the 6-byte position of the same wallet's previous
// record (0: none), so each wallet's records form a list on disk, newest first.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const INDEX_FILE_NAME = 'audit.idx';
export const ENTRY_BYTES = 16;
const HEADER_BYTES = 128;
const MAGIC = 0x31584941;
const BOOT_ID_AT = 40;
const BOOT_ID_BYTES = 64;

/** What says whether audit.log changed since the index last saw it. */
export interface LogIdentity {
  size: number;
  mtimeNs: bigint;
  ino: bigint;
}

export async function logIdentity(path: string): Promise<LogIdentity> {
  const found = await stat(path, { bigint: true });
  return { size: Number(found.size), mtimeNs: found.mtimeNs, ino: found.ino };
}

/**
 * How many entries DIR/audit.idx holds (0 when it is missing or foreign), read without opening it
 * for writing. An entry is written only after its line was, so this many records were acknowledged
 * whether or not the index is trusted for anything else (ARCHITECTURE.md "Damage is not a torn tail").
 */
export async function indexedRecords(dir: string): Promise<number> {
  const fh = await open(join(dir, INDEX_FILE_NAME), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!fh) return 0;
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4), 0, 4, 0);
    if (bytesRead < 4 || buffer.readUInt32LE(0) !== MAGIC) return 0;
    return Math.max(0, Math.floor(((await fh.stat()).size - HEADER_BYTES) / ENTRY_BYTES));
  } finally {
    await fh.close();
  }
}

export interface IndexHeader {
  /** Written true only after a close that synced everything, with the log's identity then. */
  clean: boolean;
  suspectLines: number;
  identity: LogIdentity;
  /** The kernel boot that last wrote: within one boot, every completed write is visible after a crash. */
  bootId: string;
}

export interface Entry {
  offset: number;
  length: number;
  prev: number;
}

export function writeEntry(into: Buffer, i: number, offset: number, length: number, prev: number): void {
  const at = i * ENTRY_BYTES;
  into.writeUIntLE(offset, at, 6);
  into.writeUInt32LE(length, at + 6);
  into.writeUIntLE(prev, at + 10, 6);
}

export function readEntry(from: Buffer, i: number): Entry {
  const at = i * ENTRY_BYTES;
  return { offset: from.readUIntLE(at, 6), length: from.readUInt32LE(at + 6), prev: from.readUIntLE(at + 10, 6) };
}

function readFully(fd: number, into: Buffer, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

function writeFully(fd: number, data: Buffer, position: number): void {
  for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done, position + done);
}

export class RecordIndex {
  private constructor(private readonly fd: number, public count: number) {}

  /** Opens (creating) DIR/audit.idx; `header` is null when it is missing or foreign. */
  static open(dir: string): { index: RecordIndex; header: IndexHeader | null } {
    const fd = openSync(join(dir, INDEX_FILE_NAME), constants.O_RDWR | constants.O_CREAT, 0o644);
    const size = fstatSync(fd).size;
    const index = new RecordIndex(fd, Math.max(0, Math.floor((size - HEADER_BYTES) / ENTRY_BYTES)));
    const head = Buffer.alloc(HEADER_BYTES);
    if (readFully(fd, head, 0) < HEADER_BYTES || head.readUInt32LE(0) !== MAGIC) return { index, header: null };
    const header: IndexHeader = {
      clean: head[4] === 1,
      suspectLines: head.readUInt32LE(8),
      identity: { size: head.readDoubleLE(16), mtimeNs: head.readBigUInt64LE(24), ino: head.readBigUInt64LE(32) },
      bootId: head.toString('latin1', BOOT_ID_AT, BOOT_ID_AT + BOOT_ID_BYTES).replace(/\0+$/, ''),
    };
    return { index, header };
  }

  writeHeader(header: IndexHeader): void {
    const head = Buffer.alloc(HEADER_BYTES);
    head.writeUInt32LE(MAGIC, 0);
    head[4] = header.clean ? 1 : 0;
    head.writeUInt32LE(header.suspectLines, 8);
    head.writeDoubleLE(header.identity.size, 16);
    head.writeBigUInt64LE(header.identity.mtimeNs, 24);
    head.writeBigUInt64LE(header.identity.ino, 32);
    head.write(header.bootId.slice(0, BOOT_ID_BYTES), BOOT_ID_AT, 'latin1');
    writeFully(this.fd, head, 0);
  }

  /** Drops every entry. */
  reset(): void {
    ftruncateSync(this.fd, HEADER_BYTES);
    this.count = 0;
  }

  /** Entries for positions count + 1 onwards, `ENTRY_BYTES` each, in one write. */
  append(entries: Buffer): void {
    writeFully(this.fd, entries, HEADER_BYTES + this.count * ENTRY_BYTES);
    this.count += entries.length / ENTRY_BYTES;
  }

  /** The raw entries for positions first .. first + n - 1 (all of them must exist). */
  read(first: number, n: number): Buffer {
    if (first < 1 || first + n - 1 > this.count) throw new Error(`${INDEX_FILE_NAME}: positions ${first}..${first + n - 1} are outside 1..${this.count}`);
    const entries = Buffer.allocUnsafe(n * ENTRY_BYTES);
    if (readFully(this.fd, entries, HEADER_BYTES + (first - 1) * ENTRY_BYTES) < entries.length) {
      throw new Error(`${INDEX_FILE_NAME} ended early reading positions ${first}..${first + n - 1}`);
    }
    return entries;
  }

  entry(pos: number): Entry {
    return readEntry(this.read(pos, 1), 0);
  }

  sync(): void {
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
