// Values that may or may not be promises, taken without a turn of promises when none is one.

type Taken<T extends readonly unknown[]> = { -readonly [K in keyof T]: Awaited<T[K]> };

/**
 * The values themselves when none is a promise, else Promise.all of them. Facts held in this process (a price
 * this block already read, a store on this machine, no chain) then reach the engine without the four promises
 * and reactions Promise.all makes; facts still being read are awaited together, as before.
 */
export function allAtHand<T extends readonly unknown[]>(values: T): Taken<T> | Promise<Taken<T>> {
  for (const value of values) if (isThenable(value)) return Promise.all(values) as Promise<Taken<T>>;
  return values as unknown as Taken<T>;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
