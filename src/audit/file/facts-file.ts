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
import { cutTornTail, fileLines, writeAllAt } from './file-lines.js';

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
      const end = await cutTornTail(fh);
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
    await writeAllAt(this.fh, data, this.end);
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

  /** Whole lines from byte `start` up to the acknowledged end, parsed; a line that does not parse is skipped. */
  private async *linesFrom(start: number): AsyncGenerator<{ line: FactsLine; offset: number }> {
    for await (const { bytes, offset, ended } of fileLines(this.fh, READ_BLOCK, start)) {
      if (!ended || offset + bytes.length >= this.end) return;
      const line = parseFactsLine(bytes.toString('utf8'));
      if (line) yield { line, offset };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.fh.close(), this.index.close()]);
  }
}
