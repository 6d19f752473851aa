// A minimal progress display: a redrawn bar on a terminal, a plain line every few seconds otherwise.
//
// Hand-written because the project declares no progress-bar package (the `progress`
// module in node_modules is only autocannon's dependency) and that one prints
// nothing when the stream is not a TTY, where a log line per interval is wanted.

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  stream: ProgressStream;
  /** Units of work in all (bytes of a file, records of a service's chain). */
  total: number;
  label: string;
  now?: () => number;
}

const BAR_WIDTH = 24;
const TTY_INTERVAL_MS = 100;
const PLAIN_INTERVAL_MS = 2000;

const count = (n: number) => Math.round(n).toLocaleString('en-US');

export class ProgressBar {
  private readonly began: number;
  /** When a line was last drawn: the start, so a run shorter than one interval shows only its final line. */
  private last: number;
  private readonly now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? (() => performance.now());
    this.began = this.now();
    this.last = this.began;
  }

  /** `done` in the units of `total`; `records` verified so far. Throttled. */
  update(done: number, records: number): void {
    const at = this.now();
    if (at - this.last < (this.options.stream.isTTY ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    this.last = at;
    this.draw(done, records, at);
  }

  /** Draws the final state and ends the line on a terminal. */
  finish(done: number, records: number): void {
    this.draw(done, records, this.now());
    if (this.options.stream.isTTY) this.options.stream.write('\n');
  }

  private draw(done: number, records: number, at: number): void {
    const seconds = Math.max((at - this.began) / 1000, 1e-3);
    const fraction = this.options.total > 0 ? Math.min(1, done / this.options.total) : 1;
    const rate = records / seconds;
    const eta = fraction > 0 ? (seconds * (1 - fraction)) / fraction : Number.NaN;
    const left = Number.isFinite(eta) ? eta.toFixed(1) : '?';
    const text = `${Math.floor(fraction * 100)}% ${count(records)} records, ${count(rate)} records/s, ETA ${left} s`;
    if (this.options.stream.isTTY) {
      const filled = Math.round(fraction * BAR_WIDTH);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
      this.options.stream.write(`\r${this.options.label} [${bar}] ${text}\x1b[K`);
    } else {
      this.options.stream.write(`${this.options.label}: ${text}\n`);
    }
  }
}
