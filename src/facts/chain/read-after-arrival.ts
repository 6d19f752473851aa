// One read at a time, shared by every caller that arrived before it was sent: what a caller gets was read after it asked (ARCHITECTURE.md "Chain facts by block").

/**
 * `next()` answers with a read sent after the call. The read is sent once the caller's turn of the
 * event loop has run (every caller of that turn shares it), or, while one is out (sent before this
 * caller arrived, so it may predate what the caller must see), once that one settles, shared by
 * every caller arriving meanwhile. So at most one read is out and one queued, whatever the load:
 * under load a read serves everyone who arrived during the one before, a round trip per round
 * trip rather than per caller.
 */
export class ReadAfterArrival<T> {
  private out: Promise<T> | null = null;
  private queued: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  next(): Promise<T> {
    return (this.queued ??= (this.out ?? Promise.resolve()).then(this.sendQueued, this.sendQueued));
  }

  private readonly sendQueued = (): Promise<T> => {
    this.queued = null;
    const sent = this.read();
    this.out = sent;
    // Registered before any later caller's callback on the same promise, so `out` is clear when the queued read is sent.
    const settle = () => {
      if (this.out === sent) this.out = null;
    };
    sent.then(settle, settle);
    return sent;
  };
}
