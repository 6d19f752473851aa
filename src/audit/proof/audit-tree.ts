// The live Merkle tree over the audit chain: fed by every append, caught up from the store for what
// it did not see (a start, another instance), signed into checkpoints on a cadence, asked for proofs
// (ARCHITECTURE.md "Checkpoints and proofs").
import type { AuditRecord } from '../record/audit-log.js';
import type { Checkpoint, CheckpointSigner, PublishedKey } from './checkpoint.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { ChainTree, type TreeSource } from './chain-tree.js';
import { CheckpointSigning } from './checkpoint-signing.js';

export interface AuditTreeOptions {
  /** Sign a checkpoint once this many records are past the last one (0: not by count). */
  everyRecords: number;
  /** Sign a checkpoint once this many seconds passed since the last one and records came (0: not by time). */
  everySeconds: number;
  now: () => number;
  log: (line: string) => void;
}

export interface InclusionProof {
  seq: number;
  leaf_index: number;
  leaf_hash: string;
  tree_size: number;
  audit_path: string[];
  checkpoint: Checkpoint;
}

export interface ConsistencyProof {
  first: number;
  second: number;
  proof: string[];
}

/** Why no proof: the client named something that does not exist (404, 422) or the tree cannot answer yet (503). */
export type ProofRefusal =
  | { refused: 'no_checkpoint'; detail: string }
  | { refused: 'outside'; detail: string }
  | { refused: 'unavailable'; detail: string };

/**
 * How often the tree looks without being told: for records other instances appended, and for a
 * checkpoint come due by time when no append arrives to ask. So a record is signed at most
 * AUDIT_CHECKPOINT_SECONDS plus this after its verdict, even when the traffic stops right after it.
 */
export const TICK_MS = 1_000;

export class AuditTree {
  private readonly tree: ChainTree;
  private readonly signing: CheckpointSigning<Checkpoint>;
  private timer: NodeJS.Timeout | undefined;
  /** Set when the log no longer holds what a checkpoint signed: proofs stop, the status says why. */
  private fault: string | null = null;

  /** The next stored checkpoint to hold against the tree when it reaches that size; null past the last. */
  private nextStored: number | null;
  /** Checks of stored checkpoints, one at a time in order; skipped once the tree is closing. */
  private storedChecks: Promise<void> = Promise.resolve();
  private closing = false;

  private constructor(
    source: TreeSource,
    private readonly store: CheckpointStore,
    private readonly signer: CheckpointSigner,
    private readonly options: AuditTreeOptions,
    newest: Checkpoint | null,
  ) {
    this.signing = new CheckpointSigning(store, options, newest);
    this.nextStored = store.sizeAfter?.(0) ?? null;
    this.tree = new ChainTree(source, options.log, {
      pushed: (size, hash) => {
        const checkpoint = this.signing.newest;
        if (checkpoint && size === checkpoint.tree_size) void this.checkAgainst(checkpoint, hash);
        else if (size === this.nextStored) this.checkStored(size, hash);
        if (this.nextStored !== null && size >= this.nextStored) this.nextStored = store.sizeAfter?.(size) ?? null;
      },
      grew: () => this.afterGrowth(),
    });
  }

  /** Starts following the log; the records already in it are read back in the background. */
  static async open(source: TreeSource, store: CheckpointStore, signer: CheckpointSigner, options: AuditTreeOptions): Promise<AuditTree> {
    const tree = new AuditTree(source, store, signer, options, await store.latest());
    const end = await tree.tree.start();
    const newest = tree.signing.newest;
    const damaged = tree.signing.damage();
    if (damaged) options.log(`audit: ${damaged}`);
    if (newest && newest.tree_size > end) {
      tree.fault = `checkpoint ${newest.tree_size} covers records the log no longer holds (it ends at ${end})`;
      options.log(`audit: ${tree.fault}; proofs are off until an operator looks`);
    }
    tree.timer = setInterval(() => void tree.tick(), TICK_MS);
    tree.timer.unref();
    return tree;
  }

  get key(): PublishedKey {
    return this.signer.published;
  }

  /** Seconds the tree's thread has spent hashing appends and answering questions. */
  threadBusySeconds(): number {
    return this.tree.busySeconds();
  }

  /** Called with every record this instance appended, in seq order. */
  observe(record: Pick<AuditRecord, 'seq' | 'hash'>): void {
    this.tree.observe(record);
  }

  private async checkAgainst(checkpoint: Checkpoint, lastHash: string): Promise<void> {
    const root = await this.tree.root(checkpoint.tree_size).catch(() => null);
    if (root === checkpoint.root_hash && lastHash === checkpoint.last_hash) return;
    this.fault = `the log no longer matches checkpoint ${checkpoint.tree_size}: records it covered were changed or lost`;
    this.options.log(`audit: ${this.fault}; proofs are off until an operator looks`);
  }

  /**
   * Every stored checkpoint, not only the newest, must hold the tree's root at its size: then each extends the one
   * before it, and none signed a log that was since rewritten (ARCHITECTURE.md "Checkpoints and proofs").
   */
  private checkStored(size: number, hash: string): void {
    this.storedChecks = this.storedChecks.then(async () => {
      if (this.closing || this.fault) return;
      // A line damaged since open: the store names it, and the proofs stop on that.
      const stored = await this.store.atSize(size).catch(() => null);
      if (stored) await this.checkAgainst(stored, hash);
    });
  }

  private afterGrowth(): void {
    if (this.tree.catchingUpTo === null && this.signing.due(this.tree.size)) void this.checkpoint();
  }

  /** Idle instances still follow records other instances append, and sign what came. */
  private async tick(): Promise<void> {
    // The store is down: appends fail closed already; the next tick tries again.
    await this.tree.follow().catch(() => undefined);
  }

  /** Signs the tree as it is now, one signature at a time; resolves once it is stored. */
  checkpoint(): Promise<unknown> {
    if (this.currentFault()) return this.signing.settled();
    const [size, lastHash] = [this.tree.size, this.tree.lastHash];
    return this.signing.sign(size, async (timestamp) => this.signer.sign({
      tree_size: size, root_hash: await this.tree.root(size), timestamp, last_seq: size, last_hash: lastHash,
    }));
  }

  latest(): Promise<Checkpoint | null> {
    return this.signing.latest();
  }

  checkpointAt(treeSize: number | undefined): Promise<Checkpoint | ProofRefusal> {
    return this.signing.checkpointAt(treeSize);
  }

  async inclusion(seq: number, treeSize: number | undefined): Promise<InclusionProof | ProofRefusal> {
    const checkpoint = await this.checkpointAt(treeSize);
    if ('refused' in checkpoint) return checkpoint;
    if (seq > checkpoint.tree_size) {
      return { refused: 'outside', detail: `record ${seq} is not in the tree of checkpoint ${checkpoint.tree_size}; ask again after a later checkpoint` };
    }
    const ready = await this.ready(checkpoint.tree_size);
    if (ready) return ready;
    const index = seq - 1;
    const [leaf, path] = await Promise.all([this.tree.leaf(index), this.tree.inclusionProof(index, checkpoint.tree_size)]);
    return { seq, leaf_index: index, leaf_hash: leaf, tree_size: checkpoint.tree_size, audit_path: path, checkpoint };
  }

  async consistency(first: number, second: number): Promise<ConsistencyProof | ProofRefusal> {
    if (first > second) return { refused: 'outside', detail: `first (${first}) is larger than second (${second})` };
    for (const size of [first, second]) {
      const found = await this.checkpointAt(size);
      if ('refused' in found) return found;
    }
    const ready = await this.ready(second);
    if (ready) return ready;
    return { first, second, proof: await this.tree.consistencyProof(first, second) };
  }

  /** Why proofs are off: the log no longer holds what a checkpoint signed, or the checkpoints file is damaged. */
  private currentFault(): string | null {
    return this.signing.damage() ?? this.fault;
  }

  private async ready(size: number): Promise<ProofRefusal | null> {
    const fault = this.currentFault();
    if (fault) return { refused: 'unavailable', detail: fault };
    const behind = await this.tree.reach(size);
    return behind ? { refused: 'unavailable', detail: behind } : null;
  }

  status(): Record<string, unknown> {
    const fault = this.currentFault();
    return {
      status: fault ? 'fail' : 'ok',
      tree_size: this.tree.size,
      checkpoint_size: this.signing.newest?.tree_size ?? 0,
      key_id: this.signer.published.key_id,
      ...(fault ? { fault } : {}),
      ...(this.tree.catchingUpTo !== null ? { catching_up_to: this.tree.catchingUpTo } : {}),
    };
  }

  /** Signs what the tree holds, so a clean stop leaves every record under a checkpoint. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.closing = true;
    await this.storedChecks;
    await this.tree.settle();
    if (this.tree.idle && !this.currentFault() && this.tree.size > (this.signing.newest?.tree_size ?? 0)) await this.checkpoint();
    await this.signing.close();
    await this.tree.close();
  }
}
