// The proof trees of K audit chains under one signed checkpoint: each chain followed by a ChainTree, signed together
// on the cadence, proofs of a record within its chain plus its chain under the root (ARCHITECTURE.md "Partitioned audit chains").
import { ZERO_HASH, type AuditRecord } from '../record/audit-log.js';
import { TICK_MS, type AuditTreeOptions, type ProofRefusal } from './audit-tree.js';
import { ChainTree, type TreeSource } from './chain-tree.js';
import { EMPTY_ROOT } from './merkle.js';
import { CheckpointSigning } from './checkpoint-signing.js';
import type { CheckpointSigner, PublishedKey } from './checkpoint.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { chainPath, signPartitioned, type ChainHead, type PartitionedCheckpoint, type PartitionedInclusionProof } from './partition-root.js';

export type PartitionedCheckpointStore = CheckpointStore<PartitionedCheckpoint>;

export interface PartitionedConsistencyProof {
  first: number;
  second: number;
  /** Per chain, RFC 9162 consistency from its size under `first` to its size under `second` (empty when equal or from 0). */
  chains: Array<{ chain: number; first: number; second: number; proof: string[] }>;
}

export class PartitionedTree {
  private readonly trees: ChainTree[];
  private readonly signing: CheckpointSigning<PartitionedCheckpoint>;
  private timer: NodeJS.Timeout | undefined;
  private fault: string | null = null;

  private constructor(
    sources: readonly TreeSource[],
    store: PartitionedCheckpointStore,
    private readonly signer: CheckpointSigner,
    private readonly options: AuditTreeOptions,
    newest: PartitionedCheckpoint | null,
  ) {
    this.signing = new CheckpointSigning(store, options, newest);
    this.trees = sources.map((source, p) => new ChainTree(source, options.log, {
      pushed: (size, hash) => {
        const head = this.signing.newest?.chains[p];
        if (head && size === head.tree_size) void this.checkChain(head, hash);
      },
      grew: () => this.afterGrowth(),
    }, `the proof tree of chain ${p}`));
  }

  static async open(sources: readonly TreeSource[], store: PartitionedCheckpointStore, signer: CheckpointSigner, options: AuditTreeOptions): Promise<PartitionedTree> {
    const tree = new PartitionedTree(sources, store, signer, options, await store.latest());
    tree.fault = tree.newestFault(await Promise.all(tree.trees.map((chain) => chain.start())));
    if (tree.fault) options.log(`audit: ${tree.fault}; proofs are off until an operator looks`);
    tree.timer = setInterval(() => void tree.tick(), TICK_MS);
    tree.timer.unref();
    return tree;
  }

  /** Why the newest stored checkpoint cannot be over these chains, or null. */
  private newestFault(sizes: number[]): string | null {
    const newest = this.signing.newest;
    if (!newest) return null;
    if (newest.partitions !== sizes.length) return `checkpoint ${newest.tree_size} signs ${newest.partitions} chains, this service keeps ${sizes.length}`;
    const short = newest.chains.find((head) => head.tree_size > sizes[head.chain]);
    return short ? `checkpoint ${newest.tree_size} covers records of chain ${short.chain} the log no longer holds (it ends at ${sizes[short.chain]})` : null;
  }

  get key(): PublishedKey {
    return this.signer.published;
  }

  get partitions(): number {
    return this.trees.length;
  }

  threadBusySeconds(): number {
    return this.trees.reduce((sum, tree) => sum + tree.busySeconds(), 0);
  }

  /** Called with every record this instance appended to chain `p`, in seq order. */
  observe(p: number, record: Pick<AuditRecord, 'seq' | 'hash'>): void {
    this.trees[p].observe(record);
  }

  private get size(): number {
    return this.trees.reduce((sum, tree) => sum + tree.size, 0);
  }

  private async checkChain(head: ChainHead, lastHash: string): Promise<void> {
    const root = await this.trees[head.chain].root(head.tree_size).catch(() => null);
    if (root === head.root_hash && lastHash === head.last_hash) return;
    this.fault = `chain ${head.chain} no longer matches the signed checkpoint: records it covered were changed or lost`;
    this.options.log(`audit: ${this.fault}; proofs are off until an operator looks`);
  }

  private afterGrowth(): void {
    if (this.trees.every((tree) => tree.catchingUpTo === null) && this.signing.due(this.size)) void this.checkpoint();
  }

  private async tick(): Promise<void> {
    // A chain whose store is down is read again on the next tick; its appends fail closed meanwhile.
    await Promise.all(this.trees.map((tree) => tree.follow().catch(() => undefined)));
  }

  /** Signs every chain's tree as it is now, in one checkpoint; resolves once it is stored. */
  checkpoint(): Promise<unknown> {
    if (this.fault) return this.signing.settled();
    const sizes = this.trees.map((tree) => tree.size);
    const lastHashes = this.trees.map((tree) => tree.lastHash || ZERO_HASH);
    return this.signing.sign(this.size, async (timestamp) => {
      const roots = await Promise.all(sizes.map((size, p) => (size === 0 ? EMPTY_ROOT : this.trees[p].root(size))));
      const chains = sizes.map((size, p) => ({ chain: p, tree_size: size, root_hash: roots[p], last_hash: lastHashes[p] }));
      return signPartitioned(this.signer, { timestamp, chains });
    });
  }

  latest(): Promise<PartitionedCheckpoint | null> {
    return this.signing.latest();
  }

  checkpointAt(treeSize: number | undefined): Promise<PartitionedCheckpoint | ProofRefusal> {
    return this.signing.checkpointAt(treeSize);
  }

  /** Record `seq` of chain `chain`: its path to the chain's root, and the chain's path to the checkpoint's root. */
  async inclusion(seq: number, treeSize: number | undefined, chain: number): Promise<PartitionedInclusionProof | ProofRefusal> {
    const checkpoint = await this.checkpointAt(treeSize);
    if ('refused' in checkpoint) return checkpoint;
    const head = checkpoint.chains[chain];
    if (!head) return { refused: 'outside', detail: `chain ${chain} is not one of the ${checkpoint.partitions} chains` };
    if (seq > head.tree_size) {
      return { refused: 'outside', detail: `record ${seq} of chain ${chain} is not in the tree of checkpoint ${checkpoint.tree_size} (chain ${chain} has ${head.tree_size}); ask again after a later checkpoint` };
    }
    const ready = await this.ready([head]);
    if (ready) return ready;
    const tree = this.trees[chain];
    const [leaf, path] = await Promise.all([tree.leaf(seq - 1), tree.inclusionProof(seq - 1, head.tree_size)]);
    return {
      chain, seq, leaf_index: seq - 1, leaf_hash: leaf, tree_size: head.tree_size, audit_path: path,
      chain_path: chainPath(checkpoint.chains, chain), checkpoint,
    };
  }

  async consistency(first: number, second: number): Promise<PartitionedConsistencyProof | ProofRefusal> {
    if (first > second) return { refused: 'outside', detail: `first (${first}) is larger than second (${second})` };
    const [a, b] = [await this.checkpointAt(first), await this.checkpointAt(second)];
    if ('refused' in a) return a;
    if ('refused' in b) return b;
    const shrunk = a.chains.find((head) => head.tree_size > (b.chains[head.chain]?.tree_size ?? -1));
    if (shrunk || a.partitions !== b.partitions) return { refused: 'outside', detail: `checkpoint ${second} does not extend checkpoint ${first} chain by chain` };
    const ready = await this.ready(b.chains);
    if (ready) return ready;
    const chains = await Promise.all(a.chains.map(async (head, p) => {
      const [from, to] = [head.tree_size, b.chains[p].tree_size];
      return { chain: p, first: from, second: to, proof: from === 0 || from === to ? [] : await this.trees[p].consistencyProof(from, to) };
    }));
    return { first, second, chains };
  }

  private async ready(heads: readonly ChainHead[]): Promise<ProofRefusal | null> {
    if (this.fault) return { refused: 'unavailable', detail: this.fault };
    const reached = await Promise.all(heads.map((head) => this.trees[head.chain].reach(head.tree_size)));
    const behind = reached.find((why) => why !== null);
    return behind ? { refused: 'unavailable', detail: behind } : null;
  }

  status(): Record<string, unknown> {
    const catching = this.trees.flatMap((tree, p) => (tree.catchingUpTo === null ? [] : [{ chain: p, to: tree.catchingUpTo }]));
    return {
      status: this.fault ? 'fail' : 'ok',
      partitions: this.trees.length,
      tree_size: this.size,
      chain_sizes: this.trees.map((tree) => tree.size),
      checkpoint_size: this.signing.newest?.tree_size ?? 0,
      key_id: this.signer.published.key_id,
      ...(this.fault ? { fault: this.fault } : {}),
      ...(catching.length > 0 ? { catching_up_to: catching } : {}),
    };
  }

  /** Signs what the trees hold, so a clean stop leaves every record of every chain under a checkpoint. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.trees.map((tree) => tree.settle()));
    const idle = this.trees.every((tree) => tree.idle);
    if (idle && !this.fault && this.size > (this.signing.newest?.tree_size ?? 0)) await this.checkpoint();
    await this.signing.close();
    await Promise.all(this.trees.map((tree) => tree.close()));
  }
}
