// Group commit: appends queued while a batch is in flight go out together in the next one.

/** Per-item outcome of one batch: a value, or an Error that rejects only that item. */
export type BatchOutcome<O> = Array<O | Error>;

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: Error): void;
}

/**
 * Runs at most one `commit` at a time. The first submit schedules a run on the
 * microtask queue, so a synchronous burst (Promise.all over many appends) lands in
 * one batch; everything submitted while a commit is in flight forms the next batch.
 * Items keep submission order, which is how seq stays increasing in append order.
 */
export class GroupCommitter<I, O> {
  private queue: Pending<I, O>[] = [];
  private running = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly commit: (items: I[]) => Promise<BatchOutcome<O>>,
    private readonly maxBatch = Number.POSITIVE_INFINITY,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running) return;
      this.running = true;
      queueMicrotask(() => void this.run());
    });
  }

  /** Resolves once everything submitted so far has been committed or rejected. */
  drain(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      await this.settle(batch);
    }
    this.running = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private async settle(batch: Pending<I, O>[]): Promise<void> {
    let outcome: BatchOutcome<O>;
    try {
      outcome = await this.commit(batch.map((pending) => pending.item));
    } catch (error) {
      for (const pending of batch) pending.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    batch.forEach((pending, i) => {
      const result = outcome[i];
      if (result instanceof Error) pending.reject(result);
      else pending.resolve(result as O);
    });
  }
}
