// The thread's half of the start check (src/threads/thread-start.ts), kept apart so a task module loads no more than it needs.

/** The gate's three cells: threads arrived, threads expected, milliseconds to wait. */
export const ARRIVED = 0;
export const EXPECTED = 1;
export const WAIT_MS = 2;

/**
 * Exported by every pool's task module as `arrive`: count this thread in, then block it (so
 * it takes no other start task) until all have arrived or the wait runs out. Answers whether
 * all arrived.
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
