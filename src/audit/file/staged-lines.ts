// Lines the log has written and acknowledged but the LMDB index has not committed yet: one index transaction per
// sync of the log instead of one per group commit (ARCHITECTURE.md "File audit index"). Reads see them at once. Pure.
import type { FactsMark, IndexedLine, LineEntry } from './log-index.js';

export class StagedLines {
  private lines: IndexedLine[] = [];
  /** Each staged facts mark, with the seq of the first line of its group: it is committed with that line. */
  private marks: Array<{ mark: FactsMark; seq: number }> = [];
  /** A wallet's staged seqs, oldest first. */
  private byWallet = new Map<string, number[]>();

  /** `first`: the seq the first staged line takes (the committed lines' count + 1). */
  constructor(private first: number) {}

  get size(): number {
    return this.lines.length;
  }

  /** Lines first + size onwards, and the facts pages their group began. */
  stage(lines: readonly IndexedLine[], marks: readonly FactsMark[]): void {
    for (const mark of marks) this.marks.push({ mark, seq: this.first + this.lines.length });
    for (const line of lines) {
      const seq = this.first + this.lines.length;
      this.lines.push(line);
      if (line.wallet === null) continue;
      const seqs = this.byWallet.get(line.wallet);
      if (seqs === undefined) this.byWallet.set(line.wallet, [seq]);
      else seqs.push(seq);
    }
  }

  /** The staged line at `seq`, or undefined for one before the first staged. */
  entry(seq: number): LineEntry | undefined {
    return seq >= this.first ? this.lines[seq - this.first] : undefined;
  }

  /** The wallet's staged seqs, newest first, at most `limit`. */
  walletSeqs(wallet: string, limit: number): number[] {
    const seqs = this.byWallet.get(wallet);
    return seqs === undefined ? [] : seqs.slice(-limit).reverse();
  }

  /** The newest staged facts mark not after `page`, or undefined when none is staged. */
  factsMark(page = Number.POSITIVE_INFINITY): FactsMark | undefined {
    for (let i = this.marks.length - 1; i >= 0; i--) if (this.marks[i].mark.page <= page) return this.marks[i].mark;
    return undefined;
  }

  /** The lines up to seq `last` and the marks of their groups, for one commit; `committed` drops them once it succeeds. */
  upTo(last: number): { lines: IndexedLine[]; marks: FactsMark[] } {
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
    this.byWallet = new Map();
    this.lines.forEach((line, i) => {
      if (line.wallet === null) return;
      const seqs = this.byWallet.get(line.wallet);
      if (seqs === undefined) this.byWallet.set(line.wallet, [this.first + i]);
      else seqs.push(this.first + i);
    });
  }

  /** Forgets everything (an index cleared for a rebuild). */
  reset(first: number): void {
    this.lines = [];
    this.marks = [];
    this.byWallet = new Map();
    this.first = first;
  }
}
