// Sends risk scoring to the Piscina pool in micro-batches gathered per event-loop turn.
import { Piscina } from 'piscina';
import type { RiskInput, RiskResult } from '../risk/types.js';

interface Pending {
  input: RiskInput;
  resolve: (result: RiskResult) => void;
  reject: (error: unknown) => void;
}

const WORKER_FILE = new URL('../../workers/score.js', import.meta.url).href;

/**
 * One pool.run() per request tops out near 11k tasks/s on 2 cores (DESIGN.md);
 * batches of up to 64 inputs amortise the message cost across requests that
 * arrived in the same turn of the event loop.
 */
export class ScoreBatcher {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly pool: Piscina;

  constructor(threads: number, private readonly maxBatch = 64) {
    this.pool = new Piscina({
      filename: WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      // Bounded: when the workers fall this far behind, scoring fails (closed) instead of queueing forever.
      maxQueue: threads * 256,
    });
  }

  score(input: RiskInput): Promise<RiskResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    for (let start = 0; start < batch.length; start += this.maxBatch) {
      this.runBatch(batch.slice(start, start + this.maxBatch));
    }
  }

  private runBatch(batch: Pending[]): void {
    this.pool.run(batch.map((item) => item.input)).then(
      (results: RiskResult[]) => batch.forEach((item, index) => item.resolve(results[index])),
      (error: unknown) => batch.forEach((item) => item.reject(error)),
    );
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
