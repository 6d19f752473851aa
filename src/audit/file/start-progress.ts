// Progress lines of a long pass over a file at start (audit.log or facts.log indexed, every checkpoint signature
// checked), paced by the service's clock (ARCHITECTURE.md "File audit index", "Checkpoints and proofs").

/** What a start tells the operator, and the clock its progress lines are paced by. */
export interface StartReports {
  report: (line: string) => void;
  now: () => number;
}

/** Time between two progress lines: a 7 GB log takes minutes to index, and 1.6M checkpoints minutes to check. */
export const PROGRESS_MS = 5_000;

/**
 * Tells the operator every PROGRESS_MS of `now`'s clock how far a pass over `bytes` bytes has come, and nothing in
 * between, so a start of minutes is seen to be working. `now` is the clock the service is given: a test drives it.
 */
export class StartProgress {
  private due: number;

  /** `line` words a progress line around `linesRead`'s text, when one is due. */
  constructor(
    private readonly now: () => number,
    private readonly report: (line: string) => void,
    private readonly bytes: number,
    private readonly line: (read: string) => string,
  ) {
    this.due = now() + PROGRESS_MS;
  }

  /** Asked before each line: `lines` done so far, which end `bytesRead` bytes into the pass. */
  at(lines: number, bytesRead: number): void {
    const now = this.now();
    if (now < this.due || bytesRead === 0) return;
    this.due = now + PROGRESS_MS;
    this.report(this.line(linesRead(lines, bytesRead, this.bytes)));
  }
}

/** "<lines> of about <total> lines read, <bytesRead> of <bytes> bytes (<share>%)": the total estimated from the bytes read so far. */
export function linesRead(lines: number, bytesRead: number, bytes: number): string {
  const about = Math.round((lines * bytes) / bytesRead);
  return `${lines} of about ${about} lines read, ${bytesRead} of ${bytes} bytes (${Math.floor((bytesRead / bytes) * 100)}%)`;
}
