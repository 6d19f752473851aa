// Polls a condition with a deadline: for what runs on a clock the test cannot move (Redis, real timers).
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolves as soon as `condition` holds; fails with `what` once `withinMs` of wall time pass.
 * The deadline only bounds a broken run: a passing run never waits for it.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, withinMs = 5_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${withinMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Reads `probe` until `ok` holds and returns what it read; fails with `what` and the last value
 * once `withinMs` of wall time pass. Like waitUntil, the deadline only bounds a broken run.
 */
export async function pollUntil<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, withinMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}; last seen: ${JSON.stringify(value)}`);
    await sleep(everyMs);
  }
}
