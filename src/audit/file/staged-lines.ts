// Lines the log has written and acknowledged but the LMDB index has not committed yet: one index transaction per
// sync of the log instead of one per group commit (ARCHITECTURE.md "File audit index"). Reads see them at once. Pure.
import type { FactsMark, LinkedLine } from './log-index.js';

export class StagedLines {
  private lines: LinkedLine[] = [];
  /** Each staged facts mark, with the seq of the first line of its group: it is committed with that line. */
  private marks: Array<{ mark: FactsMark; seq: number }> = [];
  /** A wallet's newest staged seq. */
  private newestByWallet = new Map<string, number>();

  /** `first`: the seq the first staged line takes (the committed lines' count + 1). */
  constructor(private first: number) {}

  get size(): number {
    return this.lines.length;
  }

  /** Lines first + size onwards, each linked to its wallet's line before it, and the facts pages their group began. */
  stage(lines: readonly LinkedLine[], marks: readonly FactsMark[]): void {
    for (const mark of marks) this.marks.push({ mark, seq: this.first + this.lines.length });
    for (const line of lines) {
      if (line.wallet !== null) this.newestByWallet.set(line.wallet, this.first + this.lines.length);
      this.lines.push(line);
    }
  }

  /** The staged line at `seq`, or undefined for one before the first staged. */
  entry(seq: number): LinkedLine | undefined {
    return seq >= this.first ? this.lines[seq - this.first] : undefined;
  }

  /** The wallet's newest staged seq, or undefined when none of its lines is staged. */
  newest(wallet: string): number | undefined {
    return this.newestByWallet.get(wallet);
  }

  /** The newest staged facts mark not after `page`, or undefined when none is staged. */
  factsMark(page = Number.POSITIVE_INFINITY): FactsMark | undefined {
    for (let i = this.marks.length - 1; i >= 0; i--) if (this.marks[i].mark.page <= page) return this.marks[i].mark;
    return undefined;
  }

  /** The lines up to seq `last` and the marks of their groups, for one commit; `committed` drops them once it succeeds. */
  upTo(last: number): { lines: LinkedLine[]; marks: FactsMark[] } {
    return {
      lines: this.lines.slice(0, Math.max(0, last - this.first + 1)),
      marks: this.marks.filter(({ seq }) => seq <= last).map(({ mark }) => mark),
    };
  }

  /** The index committed the first `lines` staged lines and the marks of their groups. */
  committed(lines: number): void {
    this.lines = this.lines.slice(lines);
    this.first += lines;
    this.marks = this.marks.filter(({ seq }) => seq >= this.first);
    // A wallet whose newest line was committed is read from the index from now on.
    for (const [wallet, seq] of this.newestByWallet) if (seq < this.first) this.newestByWallet.delete(wallet);
  }

  /** Forgets everything (an index cleared for a rebuild). */
  reset(first: number): void {
    this.lines = [];
    this.marks = [];
    this.newestByWallet = new Map();
    this.first = first;
  }
}
