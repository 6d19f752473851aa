// Reads stored lines of audit.log where the index places them: a run of positions in one read, a wallet's records one by one.
import type { FileHandle } from 'node:fs/promises';
import { clampLimit } from '../audit/list-limit.js';
import type { IndexClient } from './index-client.js';
import { ENTRY_BYTES, readEntry } from './record-index.js';
import { normalizeWallet } from '../audit/record.js';

/** Where one record's line is: its position (line number, 1-based), byte offset and length with the newline. */
export interface Span {
  pos: number;
  offset: number;
  length: number;
}

export class LogLines {
  constructor(private readonly fh: FileHandle, private readonly index: IndexClient) {}

  /** Lines at positions first .. first + count - 1 (all indexed), without newlines, read in one go. */
  async range(first: number, count: number): Promise<Buffer[]> {
    const entries = await this.index.range(first, count);
    const from = readEntry(entries, 0).offset;
    const last = readEntry(entries, count - 1);
    const data = await this.bytes(from, last.offset + last.length - from, `lines ${first}..${first + count - 1}`);
    return Array.from({ length: entries.length / ENTRY_BYTES }, (_, i) => {
      const { offset, length } = readEntry(entries, i);
      return data.subarray(offset - from, offset - from + length - 1);
    });
  }

  /** The wallet's newest `limit` records, newest first; the index walks the wallet's list on disk. */
  async walletSpans(wallet: string, limit: number): Promise<Span[]> {
    const count = clampLimit(limit, Number.MAX_SAFE_INTEGER);
    if (count === 0) return [];
    const triples = await this.index.walletEntries(normalizeWallet(wallet), count);
    return Array.from({ length: triples.length / 3 }, (_, i) => ({ pos: triples[3 * i], offset: triples[3 * i + 1], length: triples[3 * i + 2] }));
  }

  /** One record's line without its newline. */
  async line(span: Span): Promise<Buffer> {
    return (await this.bytes(span.offset, span.length, `line ${span.pos}`)).subarray(0, span.length - 1);
  }

  private async bytes(from: number, length: number, what: string): Promise<Buffer> {
    const data = Buffer.allocUnsafe(length);
    for (let got = 0; got < data.length;) {
      const { bytesRead } = await this.fh.read(data, got, data.length - got, from + got);
      if (bytesRead === 0) throw new Error(`audit.log ended early reading ${what}`);
      got += bytesRead;
    }
    return data;
  }
}
