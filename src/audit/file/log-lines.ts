// Reads stored lines of audit.log where the index places them: a run of positions in one read, a wallet's records one by one, and the records and facts they hold.
import type { FileHandle } from 'node:fs/promises';
import { clampLimit } from '../record/list-limit.js';
import type { LogIndex } from './log-index.js';
import { factsHashOf, normalizeWallet, parseLine, type StoredRecord } from '../record/record.js';
import { outcomeHashOf } from '../record/outcome.js';
import { namedDocuments } from '../record/facts-uses.js';
import type { FactsLine } from '../record/audit-log.js';
import { SHARED_FACTS_PAGE, type FactsFile } from './facts-file.js';
import { readAt } from './file-lines.js';

/** Where one record's line is: its position (line number, 1-based), byte offset and length with the newline. */
export interface Span {
  pos: number;
  offset: number;
  length: number;
}

export class LogLines {
  constructor(private readonly fh: FileHandle, private readonly index: LogIndex) {}

  /** Lines at positions first .. first + count - 1 (all indexed), without newlines, read in one go. */
  async range(first: number, count: number): Promise<Buffer[]> {
    const entries = this.index.range(first, count);
    const from = entries[0].offset;
    const last = entries[count - 1];
    const data = await this.bytes(from, last.offset + last.length - from, `lines ${first}..${first + count - 1}`);
    return entries.map(({ offset, length }) => data.subarray(offset - from, offset - from + length - 1));
  }

  /** The wallet's newest `limit` records, newest first, as the index places them. */
  async walletSpans(wallet: string, limit: number): Promise<Span[]> {
    const count = clampLimit(limit, Number.MAX_SAFE_INTEGER);
    if (count === 0) return [];
    return this.index.walletSeqs(normalizeWallet(wallet), count).map((pos) => ({ pos, ...this.index.entry(pos) }));
  }

  /** One record's line without its newline. */
  async line(span: Span): Promise<Buffer> {
    return (await this.bytes(span.offset, span.length, `line ${span.pos}`)).subarray(0, span.length - 1);
  }

  async listGlobal(limit: number, records: number): Promise<StoredRecord[]> {
    const count = clampLimit(limit, records);
    if (count === 0) return [];
    const first = records - count + 1;
    const lines = await this.range(first, count);
    return lines.map((line, i) => this.parseAt(first + i, line)).reverse();
  }

  async listWallet(wallet: string, limit: number): Promise<StoredRecord[]> {
    const spans = await this.walletSpans(wallet, limit);
    const lines = await Promise.all(spans.map((span) => this.line(span)));
    return lines.map((line, i) => this.parseAt(spans[i].pos, line));
  }

  async readLines(fromSeq: number, count: number, records: number): Promise<Buffer[]> {
    const first = Math.max(0, Math.floor(fromSeq) - 1);
    const last = first + clampLimit(count, Math.max(0, records - first));
    return last > first ? this.range(first + 1, last - first) : [];
  }

  async readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    const spans = (await this.walletSpans(wallet, count)).reverse();
    // A line the file no longer holds (cut under a running service) is null for the verifier to report.
    return Promise.all(spans.map((span) => this.line(span).catch(() => null)));
  }

  /**
   * The facts of records `fromSeq` to `fromSeq + count - 1` that have them, in seq order: each the
   * line whose hash the record names (a seq sealed twice after a crash has two lines), or the copy of it
   * an earlier record of the page wrote, listed under the record's seq, after the
   * shared documents it names, read from the start of the first record's page where the log keeps
   * them (facts-file.ts SHARED_FACTS_PAGE), each the copy kept nearest before the facts that name it.
   */
  async readFacts(facts: FactsFile, fromSeq: number, count: number, records: number): Promise<FactsLine[]> {
    const lines = await this.readLines(fromSeq, count, records);
    const wanted = new Map<number, string>();
    const outcomes = new Map<number, string>();
    lines.forEach((line, i) => {
      const hash = factsHashOf(line);
      if (hash) wanted.set(fromSeq + i, hash);
      // A format 3 record's outcome document is kept like a shared one, in its page (outcome.ts).
      const outcome = outcomeHashOf(line);
      if (outcome) outcomes.set(fromSeq + i, outcome);
    });
    if (wanted.size === 0) return [];
    const kept = new Map<string, { line: FactsLine; at: number }>();
    const found = new Map<number, { own: FactsLine; shared: FactsLine[] }>();
    const pageStart = Math.max(1, fromSeq - (fromSeq % SHARED_FACTS_PAGE));
    const withShared = (own: FactsLine, seq: number) => {
      const named = [...namedDocuments(own.text, (hash) => kept.get(hash)?.line.text).keys()].map((hash) => kept.get(hash)!);
      const outcome = kept.get(outcomes.get(seq) ?? '');
      if (outcome !== undefined) named.push(outcome);
      // In the order they are kept: each before the document that names it.
      return { own: own.seq === seq ? own : { ...own, seq }, shared: named.sort((a, b) => a.at - b.at).map((shared) => shared.line) };
    };
    // Own facts are kept once a page too (shared-facts-writes.ts): a record whose line is not under its seq takes the
    // copy of its hash kept last before it, listed under its own seq.
    const copies = new Map<string, FactsLine[]>();
    let at = 0;
    for await (const line of facts.range(pageStart, fromSeq + lines.length - 1)) {
      kept.set(line.hash, { line, at: at++ });
      if (wanted.get(line.seq) === line.hash) found.set(line.seq, withShared(line, line.seq));
      const known = copies.get(line.hash);
      if (known === undefined) copies.set(line.hash, [line]);
      else known.push(line);
    }
    for (const [seq, hash] of wanted) {
      if (found.has(seq)) continue;
      const copy = copies.get(hash)?.filter((line) => line.seq <= seq).pop();
      if (copy !== undefined) found.set(seq, withShared(copy, seq));
    }
    const answer: FactsLine[] = [];
    const listed = new Set<string>();
    for (const seq of wanted.keys()) {
      const facts = found.get(seq);
      if (facts === undefined) continue;
      for (const shared of facts.shared) if (!listed.has(shared.hash)) answer.push(shared), listed.add(shared.hash);
      answer.push(facts.own);
    }
    return answer;
  }

  private parseAt(pos: number, line: Buffer): StoredRecord {
    try {
      return parseLine(line);
    } catch (error) {
      throw new Error(`audit.log line ${pos} is corrupt: ${(error as Error).message}`);
    }
  }

  private async bytes(from: number, length: number, what: string): Promise<Buffer> {
    const data = await readAt(this.fh, from, length);
    if (data.length < length) throw new Error(`audit.log ended early reading ${what}`);
    return data;
  }
}
