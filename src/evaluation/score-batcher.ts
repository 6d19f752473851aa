// Scores trades: an allow on the event loop, a warn or deny (whose counterfactuals are the heavy
// part) in the Piscina pool, in micro-batches gathered per event-loop turn.
import { WholePool } from '../threads/thread-start.js';
import { scoredAllow } from '../risk/counterfactuals.js';
import type { RiskInput, RiskResult } from '../risk/types.js';
import { decodeResults, encodeInputs } from '../risk/wire.js';

interface Pending {
  input: RiskInput;
  resolve: (result: RiskResult) => void;
  reject: (error: unknown) => void;
}

const WORKER_FILE = new URL('../../workers/score.js', import.meta.url).href;

/**
 * One pool.run() per request tops out near 11k tasks/s on 2 cores (ARCHITECTURE.md "Scoring pool");
 * batches amortise the message cost across requests that arrived in the same
 * turn of the event loop. At most one batch is in flight per thread: under load
 * the next batch grows while the threads work, instead of waking them per turn.
 * Batches travel as compact JSON text (risk/wire.ts): one string copy is cheaper on
 * the event loop than structured-cloning each nested input, and every field is
 * finite JSON already (request values came from JSON; the engine clamps what it computes).
 */
export class ScoreBatcher {
  private pending: Pending[] = [];
  private scheduled = false;
  private inflight = 0;
  private readonly pool: WholePool;

  constructor(
    private readonly threads: number,
    private readonly maxBatch = 256,
    private readonly maxPending = 16_384,
  ) {
    this.pool = new WholePool(WORKER_FILE, threads);
  }

  /** Resolves once every scoring thread has loaded the engine: the service listens only after that. */
  started(): Promise<void> {
    return this.pool.started;
  }

  /** Evaluations waiting for a thread, for the status document and metrics. */
  get queued(): number {
    return this.pending.length;
  }

  get threadCount(): number {
    return this.threads;
  }

  /** An allow at once; a warn or deny once a thread has found its counterfactuals. Rejects, never throws. */
  score(input: RiskInput): RiskResult | Promise<RiskResult> {
    // One pass of the engine costs less than the hand-off; only a verdict with counterfactuals to find goes to a thread.
    let allowed: RiskResult | null;
    try {
      allowed = scoredAllow(input);
    } catch (error) {
      return Promise.reject(error);
    }
    if (allowed !== null) return allowed;
    // Bounded: when the threads fall this far behind, scoring fails (closed) instead of queueing forever.
    if (this.pending.length >= this.maxPending) return Promise.reject(new Error('scoring queue is full'));
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
    while (this.pending.length > 0 && this.inflight < this.threads) {
      this.runBatch(this.pending.splice(0, this.maxBatch));
    }
  }

  private runBatch(batch: Pending[]): void {
    this.inflight += 1;
    this.pool.run(encodeInputs(batch.map((item) => item.input))).then(
      (text: string) => {
        const results = decodeResults(text);
        batch.forEach((item, index) => item.resolve(results[index]));
      },
      (error: unknown) => batch.forEach((item) => item.reject(error)),
    ).finally(() => {
      this.inflight -= 1;
      this.flush();
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
