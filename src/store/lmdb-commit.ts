// How a failed LMDB commit is read and kept from ending the process (ARCHITECTURE.md "Embedded store").
//
// lmdb 3.x (write.js) rejects every write of a failed transaction with one generic error,
// "Commit failed (see commitError for details)", whose `commitError` is a second promise that
// rejects with the cause (ENOSPC, EIO). Two of those promises are held by nobody unless we hold
// them: the `commitError` itself, and the promise of the instruction lmdb issues itself to start
// the writes of an event turn as one transaction. Node ends the process on either rejection.
import type { RootDatabase } from 'lmdb';

interface CommitFailure {
  commitError?: PromiseLike<unknown>;
}

function causeHolder(error: unknown): PromiseLike<unknown> | undefined {
  const held = error !== null && typeof error === 'object' ? (error as CommitFailure).commitError : undefined;
  return held !== undefined && typeof held.then === 'function' ? held : undefined;
}

/**
 * What a rejected LMDB write failed on: the cause behind lmdb's generic commit error, or the
 * error itself. Marks the cause handled at once, and resolves by the next turn of the event
 * loop: lmdb rejects the cause in the same callback that rejects the writes, but a cause it
 * never rejects must not hold the caller.
 */
export function commitCause(error: unknown): Promise<unknown> {
  const held = causeHolder(error);
  if (held === undefined) return Promise.resolve(error);
  return new Promise((resolve) => {
    held.then(() => resolve(error), resolve);
    setImmediate(() => resolve(error));
  });
}

/**
 * Holds the promise lmdb makes for the start of each event turn's transaction. lmdb makes it
 * in a setImmediate queued by the turn's first write; one queued after that write runs after
 * it, and hands the then current commit promise a handler.
 */
export class TurnCommits {
  private queued = false;

  constructor(private readonly root: RootDatabase) {}

  /** Call after issuing a write. */
  issued(): void {
    if (this.queued) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      this.root.committed.then(undefined, (error: unknown) => commitCause(error));
    });
  }
}
