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
// that names it. Where each page of seqs begins in the file is kept in the LMDB index (log-index.ts, `facts`),
// marked in the group commit that writes the page's first line, so a range is found without reading the file from
// its start (ARCHITECTURE.md "File audit index").
import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { factsLineText, parseFactsLine, type FactsLine } from '../record/audit-log.js';
import { cutTornTail, fileLines, readAt, writeAllAt } from './file-lines.js';
import type { FactsMark, LogIndex } from './log-index.js';
import { PROGRESS_MS, StartProgress, type StartReports } from './start-progress.js';

export const FACTS_FILE_NAME = 'facts.log';
/** The sparse index an older version kept beside facts.log; its map now lives in the LMDB index. */
const OLD_INDEX_FILE_NAME = 'facts.idx';
/**
 * The file log writes a shared facts document (ARCHITECTURE.md "Recorded facts") once per page of this many seqs,
 * at its first use in the page, and reads a range's facts from the start of its first page: every document a
 * record's facts name is found in that one read, with no index by hash.
 */
export const SHARED_FACTS_PAGE = 256;
const READ_BLOCK = 1 << 20;
/** Pages marked per transaction while catching up. */
const CATCH_UP_BATCH = 8192;

const pageOf = (seq: number): number => Math.floor(seq / SHARED_FACTS_PAGE);

export type { FactsLine };

/** What facts.log needs of the LMDB index: where each page of seqs begins. */
export type FactsMarks = Pick<LogIndex, 'add' | 'lastFactsMark' | 'factsStart' | 'clearFacts'>;

export class FactsFile {
  private constructor(private readonly fh: FileHandle, private readonly marks: FactsMarks, private end: number) {}

  /**
   * Opens facts.log, cutting a torn last line, and marks in the index the pages its lines after the last marked
   * page begin (all of them when the index has none: a new index, or a data folder from before the facts pages
   * were in it, whose facts.idx is removed).
   */
  static async open(dir: string, marks: FactsMarks, reports: StartReports): Promise<FactsFile> {
    const fh = await open(join(dir, FACTS_FILE_NAME), constants.O_RDWR | constants.O_CREAT, 0o644);
    try {
      const file = new FactsFile(fh, marks, await cutTornTail(fh));
      await file.catchUp(reports);
      await rm(join(dir, OLD_INDEX_FILE_NAME), { force: true });
      return file;
    } catch (error) {
      await fh.close();
      throw error;
    }
  }

  /** The last mark must be the start of a line of its page: else the marks describe another file and are rebuilt. */
  private async trustedMark(report: (line: string) => void): Promise<FactsMark | null> {
    const mark = this.marks.lastFactsMark();
    if (mark === null) return null;
    const before = mark.offset === 0 ? Buffer.from('\n') : await readAt(this.fh, mark.offset - 1, 1);
    const line = mark.offset < this.end && before[0] === 0x0a ? await this.lineAt(mark.offset) : null;
    if (line !== null && pageOf(line.seq) === mark.page) return mark;
    report(`audit: the index's facts pages do not match facts.log (page ${mark.page} at byte ${mark.offset}); indexing its pages again`);
    this.marks.clearFacts();
    return null;
  }

  private async lineAt(offset: number): Promise<FactsLine | null> {
    for await (const { line } of this.linesFrom(offset)) return line;
    return null;
  }

  /** Marks the pages that begin after the last marked one, in batches, telling the operator how far a long run has come. */
  private async catchUp({ report, now }: StartReports): Promise<void> {
    const mark = await this.trustedMark(report);
    if (mark === null && this.end > 0) report(`audit: indexing facts.log from its start (${this.end} bytes; progress every ${PROGRESS_MS / 1000} s)`);
    const from = mark?.offset ?? 0;
    const progress = new StartProgress(now, report, this.end - from, (read) => `audit: indexing facts.log: ${read}`);
    let marked = mark?.page ?? -1;
    let batch: FactsMark[] = [];
    let lines = 0;
    for await (const { line, offset } of this.linesFrom(from)) {
      progress.at(lines++, offset - from);
      if (pageOf(line.seq) > marked) batch.push({ page: (marked = pageOf(line.seq)), offset });
      if (batch.length < CATCH_UP_BATCH) continue;
      this.marks.add([], batch);
      batch = [];
    }
    this.marks.add([], batch);
  }

  /**
   * Appends these lines at the end; returns the pages they begin, for the index to mark in the group's commit
   * (after the sync: a mark never points past what a crash could keep).
   */
  async append(lines: FactsLine[]): Promise<FactsMark[]> {
    if (lines.length === 0) return [];
    const parts: Buffer[] = [];
    const begun: FactsMark[] = [];
    let marked = this.marks.lastFactsMark()?.page ?? -1;
    let offset = this.end;
    for (const facts of lines) {
      // Each line encoded once: its length in bytes comes with it.
      const line = Buffer.from(factsLineText(facts), 'utf8');
      if (pageOf(facts.seq) > marked) begun.push({ page: (marked = pageOf(facts.seq)), offset });
      parts.push(line);
      offset += line.length;
    }
    const data = parts.length === 1 ? parts[0] : Buffer.concat(parts, offset - this.end);
    await writeAllAt(this.fh, data, this.end);
    this.end += data.length;
    return begun;
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

  /** Every line with `from <= seq <= to`, in file order (orphans and all), read from where `from`'s page begins. */
  async *range(from: number, to: number): AsyncGenerator<FactsLine> {
    for await (const { line } of this.linesFrom(this.marks.factsStart(pageOf(from)))) {
      // A later line may still hold a seq in range: orphans precede the lines sealed again.
      if (line.seq > to + SHARED_FACTS_PAGE) return;
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
    await this.fh.close();
  }
}
