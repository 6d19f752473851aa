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
