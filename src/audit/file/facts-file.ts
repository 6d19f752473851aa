// The facts behind each record, beside the file audit log (ARCHITECTURE.md "Recorded facts").
//
// DATA_DIR/audit/facts.log holds one line per record that has facts, in seq order:
//
//     <seq> <64 hex SHA-256 of the facts> <RFC 8785 canonical JSON of the facts> \n
//
// written in the same group commit as the records, before them. A record's `facts_hash` names its
// line. A crash between the two writes can leave lines for records that were never written; their
// seqs are sealed again, so a seq may have two lines and the record's hash says which is its own.
// A shared document the facts name by hash is a line of its own, under the seq of the first record of its page
// that names it. facts.idx is a sparse index (seq and byte offset of one line in every 256, 16 bytes each) so a
// range is found without reading the file from its start; it is a hint, rebuilt when missing.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { factsLineText, parseFactsLine, type FactsLine } from '../record/audit-log.js';

export const FACTS_FILE_NAME = 'facts.log';
const INDEX_FILE_NAME = 'facts.idx';
const INDEX_EVERY = 256;
/**
 * The file log writes a shared facts document (ARCHITECTURE.md "Recorded facts") once per page of this many seqs,
 * at its first use in the page, and reads a range's facts from the start of its first page: every document a
 * record's facts name is found in that one read, with no index by hash.
 */
export const SHARED_FACTS_PAGE = 256;
const READ_BLOCK = 1 << 20;

export type { FactsLine };

export class FactsFile {
  private seqs = new Float64Array(1024);
  private offsets = new Float64Array(1024);
  private entries = 0;
  /** Highest seq written since open (or found at open); lines with a lower seq are orphans or older. */
  private lastSeq = 0;

  private constructor(private readonly fh: FileHandle, private readonly index: FileHandle, private end: number) {}

  /** Opens both files, cutting a torn last line; rebuilds the sparse index when it is missing or behind. */
  static async open(dir: string): Promise<FactsFile> {
    const fh = await open(join(dir, FACTS_FILE_NAME), constants.O_RDWR | constants.O_CREAT, 0o644);
    const index = await open(join(dir, INDEX_FILE_NAME), constants.O_RDWR | constants.O_CREAT, 0o644);
    try {
      const end = await goodEnd(fh);
      const file = new FactsFile(fh, index, end);
      await file.loadIndex();
      return file;
    } catch (error) {
      await Promise.all([fh.close(), index.close()]);
      throw error;
    }
  }

  private async loadIndex(): Promise<void> {
    const bytes = await this.index.readFile();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength - (bytes.byteLength % 16));
    let indexedTo = 0;
    for (let at = 0; at < view.byteLength; at += 16) {
      const seq = view.getFloat64(at, true);
      const offset = view.getFloat64(at + 8, true);
      if (!(seq > this.lastSeq) || !(offset >= indexedTo) || offset >= this.end) break;
      this.remember(seq, offset);
      indexedTo = offset;
    }
    await this.index.truncate(this.entries * 16);
    // Lines past the last indexed one are read once to find their seqs (a few hundred at most unless the index was lost).
    for await (const { line, offset } of this.linesFrom(indexedTo)) {
      if (line.seq > this.lastSeq && (line.seq % INDEX_EVERY === 0 || this.entries === 0)) await this.addEntry(line.seq, offset);
      this.lastSeq = Math.max(this.lastSeq, line.seq);
    }
  }

  private remember(seq: number, offset: number): void {
    if (this.entries === this.seqs.length) {
      const grow = (old: Float64Array) => {
        const grown = new Float64Array(old.length * 2);
        grown.set(old);
        return grown;
      };
      this.seqs = grow(this.seqs);
      this.offsets = grow(this.offsets);
    }
    this.seqs[this.entries] = seq;
    this.offsets[this.entries] = offset;
    this.entries++;
    this.lastSeq = Math.max(this.lastSeq, seq);
  }

  private async addEntry(seq: number, offset: number): Promise<void> {
    const entry = Buffer.alloc(16);
    entry.writeDoubleLE(seq, 0);
    entry.writeDoubleLE(offset, 8);
    await this.index.write(entry, 0, 16, this.entries * 16);
    this.remember(seq, offset);
  }

  /** The bytes to append for these lines, and the index entries they bring. */
  async append(lines: FactsLine[]): Promise<void> {
    if (lines.length === 0) return;
    const parts: Buffer[] = [];
    const marks: Array<[number, number]> = [];
    let offset = this.end;
    for (const facts of lines) {
      const { seq } = facts;
      // Each line encoded once: its length in bytes comes with it.
      const line = Buffer.from(factsLineText(facts), 'utf8');
      if (seq > this.lastSeq && (seq % INDEX_EVERY === 0 || this.entries + marks.length === 0)) marks.push([seq, offset]);
      parts.push(line);
      offset += line.length;
    }
    const data = parts.length === 1 ? parts[0] : Buffer.concat(parts, offset - this.end);
    for (let done = 0; done < data.length;) {
      const { bytesWritten } = await this.fh.write(data, done, data.length - done, this.end + done);
      done += bytesWritten;
    }
    this.end += data.length;
    for (const [seq, at] of marks) await this.addEntry(seq, at);
    this.lastSeq = Math.max(this.lastSeq, lines[lines.length - 1].seq);
  }

  async sync(): Promise<void> {
    await this.fh.datasync();
  }

  /** Cuts back to `end` after a failed group commit (the audit log cuts its own tail the same way). */
  async cutTo(end: number): Promise<void> {
    this.end = end;
    await this.fh.truncate(end);
  }

  get size(): number {
    return this.end;
  }

  /** Every line with `from <= seq <= to`, in file order (orphans and all). */
  async *range(from: number, to: number): AsyncGenerator<FactsLine> {
    let [low, high, start] = [0, this.entries - 1, 0];
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (this.seqs[middle] <= from) {
        start = this.offsets[middle];
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    for await (const { line } of this.linesFrom(start)) {
      // A later line may still hold a seq in range: orphans precede the lines sealed again.
      if (line.seq > to + INDEX_EVERY) return;
      if (line.seq >= from && line.seq <= to) yield line;
    }
  }

  private async *linesFrom(start: number): AsyncGenerator<{ line: FactsLine; offset: number }> {
    let carry = Buffer.alloc(0);
    let carryAt = start;
    for (let at = start; at < this.end;) {
      const length = Math.min(READ_BLOCK, this.end - at);
      const { buffer, bytesRead } = await this.fh.read(Buffer.alloc(length), 0, length, at);
      at += bytesRead;
      if (bytesRead === 0) break;
      const bytes = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      let lineStart = 0;
      for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, lineStart)) {
        const line = parseFactsLine(bytes.toString('utf8', lineStart, newline));
        if (line) yield { line, offset: carryAt + lineStart };
        lineStart = newline + 1;
      }
      carry = bytes.subarray(lineStart);
      carryAt += lineStart;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.fh.close(), this.index.close()]);
  }
}

/** The end of the last whole line; a torn tail is cut. */
async function goodEnd(fh: FileHandle): Promise<number> {
  const { size } = await fh.stat();
  let end = size;
  const block = Buffer.alloc(64 * 1024);
  while (end > 0) {
    const from = Math.max(0, end - block.length);
    const { bytesRead } = await fh.read(block, 0, end - from, from);
    const newline = block.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) {
      end = from + newline + 1;
      break;
    }
    end = from;
  }
  if (end < size) await fh.truncate(end);
  return end;
}
