// Knowing that every thread of a Piscina pool has loaded its module (ARCHITECTURE.md "Thread pools start whole").
import type { Piscina } from 'piscina';

/**
 * How long a pool's threads may take to load their modules before startup gives up:
 * generous, because a loaded machine can take seconds to compile a worker's imports.
 */
export const THREAD_START_MS = 30_000;

// The gate's three cells: threads arrived, threads expected, milliseconds to wait.
const ARRIVED = 0;
const EXPECTED = 1;
const WAIT_MS = 2;

export class ThreadStartError extends Error {
  override name = 'ThreadStartError';
}

/**
 * Resolves once each of the pool's `threads` threads has loaded its module and taken a
 * task. Piscina hands a task only to a thread that has loaded, and one task at a time,
 * so `threads` tasks that each wait for all the others must have landed on `threads`
 * different threads. Stopping a pool only after this keeps a thread from being
 * terminated in the middle of loading, which aborts the whole process on Node 20
 * (a termination during `require()` of an ES module reaches a fatal V8 check).
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
 * The thread's half, exported by every pool's task module as `arrive`: count this thread
 * in, then block it (so it takes no other start task) until all have arrived or the
 * wait runs out. Answers whether all arrived.
 */
export function arrive(gate: Int32Array): boolean {
  const deadline = Date.now() + gate[WAIT_MS]!;
  let arrived = Atomics.add(gate, ARRIVED, 1) + 1;
  Atomics.notify(gate, ARRIVED);
  while (arrived < gate[EXPECTED]!) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.wait(gate, ARRIVED, arrived, left);
    arrived = Atomics.load(gate, ARRIVED);
  }
  return true;
}
