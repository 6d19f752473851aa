// The live Merkle tree over the audit chain: fed by every append, caught up from the store for what
// it did not see (a start, another instance), signed into checkpoints on a cadence, asked for proofs
// (ARCHITECTURE.md "Checkpoints and proofs").
import type { AuditHead, AuditLineSource, AuditRecord } from '../record/audit-log.js';
import type { Checkpoint, CheckpointSigner, PublishedKey } from './checkpoint.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { TreeThread } from './tree-thread.js';

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

const CATCH_UP_LINES = 10_000;
/**
 * How often the tree looks without being told: for records other instances appended, and for a
 * checkpoint come due by time when no append arrives to ask. So a record is signed at most
 * AUDIT_CHECKPOINT_SECONDS plus this after its verdict, even when the traffic stops right after it.
 */
const TICK_MS = 1_000;
const HEX64 = /^[0-9a-f]{64}$/;

type TreeSource = AuditLineSource & { head(): Promise<AuditHead> };

export class AuditTree {
  private readonly tree = new TreeThread();
  /** Records that arrived ahead of the tree (it is catching up below them). */
  private readonly ahead = new Map<number, string>();
  private lastHash = '';
  private newest: Checkpoint | null;
  private catchingUp: Promise<void> | null = null;
  private catchUpTarget = 0;
  private signing: Promise<unknown> = Promise.resolve();
  private signingSize = 0;
  private signingAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Set when the log no longer holds what a checkpoint signed: proofs stop, the status says why. */
  private fault: string | null = null;
  private closed = false;

  private constructor(
    private readonly source: TreeSource,
    private readonly store: CheckpointStore,
    private readonly signer: CheckpointSigner,
    private readonly options: AuditTreeOptions,
    newest: Checkpoint | null,
  ) {
    this.newest = newest;
  }

  /** Starts following the log; the records already in it are read back in the background. */
  static async open(source: TreeSource, store: CheckpointStore, signer: CheckpointSigner, options: AuditTreeOptions): Promise<AuditTree> {
    const tree = new AuditTree(source, store, signer, options, await store.latest());
    const head = await source.head();
    if (tree.newest && tree.newest.tree_size > head.seq) {
      tree.fault = `checkpoint ${tree.newest.tree_size} covers records the log no longer holds (it ends at ${head.seq})`;
      options.log(`audit: ${tree.fault}; proofs are off until an operator looks`);
    }
    if (head.seq > 0) tree.catchUp(head.seq);
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
    if (record.seq <= this.tree.size) return;
    if (record.seq === this.tree.size + 1 && this.catchingUp === null) {
      this.push(record.hash);
      this.afterGrowth();
      return;
    }
    this.ahead.set(record.seq, record.hash);
    this.catchUp(record.seq - 1);
  }

  private push(hash: string): void {
    this.tree.append(hash);
    this.lastHash = hash;
    if (this.newest && this.tree.size === this.newest.tree_size) void this.checkAgainst(this.newest, hash);
  }

  /** Takes in-order records that were waiting for the tree to reach them. */
  private drainAhead(): void {
    for (let hash = this.ahead.get(this.tree.size + 1); hash !== undefined; hash = this.ahead.get(this.tree.size + 1)) {
      this.ahead.delete(this.tree.size + 1);
      this.push(hash);
    }
  }

  /** Reads records up to `target` from the store, a chunk at a time, in one background loop. */
  private catchUp(target: number): void {
    this.catchUpTarget = Math.max(this.catchUpTarget, target);
    this.catchingUp ??= this.readForward().catch((error: Error) => {
      this.options.log(`audit: the proof tree could not read the log (${error.message}); it retries on its next tick`);
    }).finally(() => {
      this.catchingUp = null;
      this.drainAhead();
      this.afterGrowth();
    });
  }

  private async readForward(): Promise<void> {
    while (this.tree.size < this.catchUpTarget && !this.closed) {
      this.drainAhead();
      if (this.tree.size >= this.catchUpTarget) break;
      const from = this.tree.size + 1;
      const lines = await this.source.readLines(from, Math.min(CATCH_UP_LINES, this.catchUpTarget - this.tree.size));
      if (lines.length === 0) throw new Error(`record ${from} is not in the log yet`);
      for (const [i, line] of lines.entries()) {
        if (this.tree.size !== from + i - 1) break;
        const hash = line.toString('latin1', 0, 64);
        if (!HEX64.test(hash)) throw new Error(`record ${from + i} does not start with a hash`);
        this.push(hash);
      }
      // Lets appends and requests run between chunks of a long catch-up.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async checkAgainst(checkpoint: Checkpoint, lastHash: string): Promise<void> {
    const root = await this.tree.root(checkpoint.tree_size).catch(() => null);
    if (root === checkpoint.root_hash && lastHash === checkpoint.last_hash) return;
    this.fault = `the log no longer matches checkpoint ${checkpoint.tree_size}: records it covered were changed or lost`;
    this.options.log(`audit: ${this.fault}; proofs are off until an operator looks`);
  }

  private afterGrowth(): void {
    // Measured from the last checkpoint begun, signed or not yet: one in flight is not asked for twice.
    const since = this.tree.size - Math.max(this.signingSize, this.newest?.tree_size ?? 0);
    if (since <= 0 || this.catchingUp !== null) return;
    const lastAt = Math.max(this.signingAt, this.newest?.timestamp ?? 0);
    const byCount = this.options.everyRecords > 0 && since >= this.options.everyRecords;
    const byTime = this.options.everySeconds > 0 && this.options.now() - lastAt >= this.options.everySeconds * 1000;
    if (byCount || byTime) void this.checkpoint();
  }

  /** Idle instances still follow records other instances append, and sign what came. */
  private async tick(): Promise<void> {
    try {
      const head = await this.source.head();
      if (head.seq > this.tree.size) this.catchUp(head.seq);
      else this.afterGrowth();
    } catch {
      // The store is down: appends fail closed already; the next tick tries again.
    }
  }

  /** Signs the tree as it is now, one signature at a time; resolves once it is stored. */
  checkpoint(): Promise<unknown> {
    const size = this.tree.size;
    if (size === 0 || size <= this.signingSize || this.fault) return this.signing;
    this.signingSize = size;
    const [timestamp, lastHash] = [this.options.now(), this.lastHash];
    this.signingAt = timestamp;
    this.signing = this.signing.then(async () => {
      const body = { tree_size: size, root_hash: await this.tree.root(size), timestamp, last_seq: size, last_hash: lastHash };
      const kept = await this.store.add(this.signer.sign(body));
      if (kept.tree_size > (this.newest?.tree_size ?? 0)) this.newest = kept;
    }).catch((error: Error) => {
      this.signingSize = Math.min(this.signingSize, this.newest?.tree_size ?? 0);
      this.options.log(`audit: checkpoint ${size} was not stored (${error.message}); the next one will cover it`);
    });
    return this.signing;
  }

  async latest(): Promise<Checkpoint | null> {
    const stored = await this.store.latest();
    if (stored && stored.tree_size > (this.newest?.tree_size ?? 0)) this.newest = stored;
    return this.newest;
  }

  async checkpointAt(treeSize: number | undefined): Promise<Checkpoint | ProofRefusal> {
    const checkpoint = treeSize === undefined ? await this.latest() : await this.store.atSize(treeSize);
    if (checkpoint) return checkpoint;
    return {
      refused: 'no_checkpoint',
      detail: treeSize === undefined ? 'no checkpoint has been signed yet' : `no checkpoint has tree_size ${treeSize}; GET the latest checkpoint for one that does`,
    };
  }

  async inclusion(seq: number, treeSize: number | undefined): Promise<InclusionProof | ProofRefusal> {
    const checkpoint = await this.checkpointAt(treeSize);
    if ('refused' in checkpoint) return checkpoint;
    if (seq > checkpoint.tree_size) {
      return { refused: 'outside', detail: `record ${seq} is not in the tree of checkpoint ${checkpoint.tree_size}; ask again after a later checkpoint` };
    }
    const ready = this.ready(checkpoint.tree_size);
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
    const ready = this.ready(second);
    if (ready) return ready;
    return { first, second, proof: await this.tree.consistencyProof(first, second) };
  }

  private ready(size: number): ProofRefusal | null {
    if (this.fault) return { refused: 'unavailable', detail: this.fault };
    if (this.tree.size < size) {
      if (this.catchingUp === null) this.catchUp(size);
      return { refused: 'unavailable', detail: `the proof tree is reading the log back (${this.tree.size} of ${size} records); try again shortly` };
    }
    return null;
  }

  status(): Record<string, unknown> {
    return {
      status: this.fault ? 'fail' : 'ok',
      tree_size: this.tree.size,
      checkpoint_size: this.newest?.tree_size ?? 0,
      key_id: this.signer.published.key_id,
      ...(this.fault ? { fault: this.fault } : {}),
      ...(this.catchingUp ? { catching_up_to: this.catchUpTarget } : {}),
    };
  }

  /** Signs what the tree holds, so a clean stop leaves every record under a checkpoint. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.catchingUp;
    if (this.catchingUp === null && !this.fault && this.tree.size > (this.newest?.tree_size ?? 0)) await this.checkpoint();
    await this.signing;
    await this.tree.close();
    await this.store.close();
  }
}
