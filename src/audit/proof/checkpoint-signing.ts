// When a checkpoint is due, signing one at a time and keeping the newest: the cadence the single chain's tree and the
// partitioned tree share, whatever shape their checkpoints have (ARCHITECTURE.md "Checkpoints and proofs").
import type { AuditTreeOptions, ProofRefusal } from './audit-tree.js';
import type { CheckpointStore } from './checkpoint-store.js';

export class CheckpointSigning<C extends { tree_size: number; timestamp: number }> {
  private signing: Promise<unknown> = Promise.resolve();
  private signingSize = 0;
  private signingAt = 0;

  constructor(private readonly store: CheckpointStore<C>, private readonly options: AuditTreeOptions, public newest: C | null) {}

  /** Whether a tree of `size` records is due for a checkpoint, by count or by time. */
  due(size: number): boolean {
    // Measured from the last checkpoint begun, signed or not yet: one in flight is not asked for twice.
    const since = size - Math.max(this.signingSize, this.newest?.tree_size ?? 0);
    if (since <= 0) return false;
    const lastAt = Math.max(this.signingAt, this.newest?.timestamp ?? 0);
    const byCount = this.options.everyRecords > 0 && since >= this.options.everyRecords;
    const byTime = this.options.everySeconds > 0 && this.options.now() - lastAt >= this.options.everySeconds * 1000;
    return byCount || byTime;
  }

  /**
   * Signs a tree of `size` records with `build` (given the checkpoint's timestamp; what it signs must be read before
   * this is called), after any signature in flight; resolves once it is stored, or at once when `size` is not new.
   */
  sign(size: number, build: (timestamp: number) => Promise<C>): Promise<unknown> {
    if (size === 0 || size <= this.signingSize) return this.signing;
    this.signingSize = size;
    const timestamp = this.options.now();
    this.signingAt = timestamp;
    this.signing = this.signing.then(async () => {
      const kept = await this.store.add(await build(timestamp));
      if (kept.tree_size > (this.newest?.tree_size ?? 0)) this.newest = kept;
    }).catch((error: Error) => {
      this.signingSize = Math.min(this.signingSize, this.newest?.tree_size ?? 0);
      this.options.log(`audit: checkpoint ${size} was not stored (${error.message}); the next one will cover it`);
    });
    return this.signing;
  }

  /** The signature in flight, if any. */
  settled(): Promise<unknown> {
    return this.signing;
  }

  /** The newest checkpoint stored, by this instance or another. */
  async latest(): Promise<C | null> {
    const stored = await this.store.latest();
    if (stored && stored.tree_size > (this.newest?.tree_size ?? 0)) this.newest = stored;
    return this.newest;
  }

  /** Why the store's checkpoints cannot be served or added to, or null (see CheckpointStore.damage). */
  damage(): string | null {
    return this.store.damage?.() ?? null;
  }

  async checkpointAt(treeSize: number | undefined): Promise<C | ProofRefusal> {
    const damaged = (detail = this.damage()) => (detail === null ? null : { refused: 'unavailable' as const, detail });
    const before = damaged();
    if (before) return before;
    let checkpoint: C | null;
    try {
      checkpoint = treeSize === undefined ? await this.latest() : await this.store.atSize(treeSize);
    } catch (error) {
      // A line found damaged as it was read: the store now names it.
      const found = damaged();
      if (found) return found;
      throw error;
    }
    if (checkpoint) return checkpoint;
    return {
      refused: 'no_checkpoint',
      detail: treeSize === undefined ? 'no checkpoint has been signed yet' : `no checkpoint has tree_size ${treeSize}; GET the latest checkpoint for one that does`,
    };
  }

  /** Waits for the signature in flight, then closes the store. */
  async close(): Promise<void> {
    await this.signing;
    await this.store.close();
  }
}
