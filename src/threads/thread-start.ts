// Piscina pools that know when every thread has loaded its module, and stop only after that (ARCHITECTURE.md "Thread pools start whole").
import { Piscina } from 'piscina';
import { EXPECTED, WAIT_MS } from './arrive.js';

/**
 * How long a pool's threads may take to load their modules before startup gives up:
 * generous, because a loaded machine can take seconds to compile a worker's imports.
 */
const THREAD_START_MS = 30_000;

export class ThreadStartError extends Error {
  override name = 'ThreadStartError';
}

/**
 * Resolves once each of the pool's `threads` threads has loaded its module and taken a
 * task. Piscina hands a task only to a thread that has loaded, and one task at a time,
 * so `threads` tasks that each wait for all the others (src/threads/arrive.ts) must have
 * landed on `threads` different threads.
 */
export async function allThreadsStarted(pool: Piscina, threads: number, waitMs = THREAD_START_MS): Promise<void> {
  const gate = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  gate[EXPECTED] = threads;
  gate[WAIT_MS] = waitMs;
  const arrivals: boolean[] = await Promise.all(Array.from({ length: threads }, () => pool.run(gate, { name: 'arrive' })));
  if (!arrivals.every(Boolean)) {
    throw new ThreadStartError(`the pool's ${threads} threads did not all start within ${waitMs} ms`);
  }
}

/**
 * A fixed-size Piscina pool whose threads are checked as they start. It is destroyed only
 * once they have loaded: a thread terminated in the middle of loading aborts the whole
 * process on Node 20 (a termination during `require()` of an ES module reaches a fatal V8 check).
 */
export class WholePool {
  private readonly pool: Piscina;
  /** Resolves once every thread has loaded its module; rejects with ThreadStartError. */
  readonly started: Promise<void>;

  constructor(filename: string, threads: number) {
    this.pool = new Piscina({ filename, minThreads: threads, maxThreads: threads });
    this.started = allThreadsStarted(this.pool, threads);
    this.started.catch(() => undefined); // whoever needs the answer awaits it; destroy() only waits
  }

  run(...task: Parameters<Piscina['run']>): ReturnType<Piscina['run']> {
    return this.pool.run(...task);
  }

  async destroy(): Promise<void> {
    await this.started.catch(() => undefined);
    await this.pool.destroy();
  }
}
