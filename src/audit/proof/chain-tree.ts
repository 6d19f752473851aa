// The Merkle tree of one audit chain, following it: fed by the appends this instance made, read back from the
// store for the rest (a start, another instance); the single chain's AuditTree and the partitioned tree both
// sign from it (ARCHITECTURE.md "Checkpoints and proofs", "Partitioned audit chains").
import type { AuditHead, AuditLineSource, AuditRecord } from '../record/audit-log.js';
import { isSha256Hex } from '../record/sha256.js';
import { TreeThread } from './tree-thread.js';

export type TreeSource = AuditLineSource & {
  head(): Promise<AuditHead>;
  /**
   * The head the tree follows when the store has one apart from `head()`: on Redis with AUDIT_REPLICA_ACKS > 0, the
   * last record a WAIT confirmed, so the tree never takes in a record a failover can drop (ARCHITECTURE.md "Durable
   * acknowledgement"). Without it (the file log) the head is as durable as a record gets.
   */
  acknowledgedHead?(): Promise<AuditHead>;
};

/** The head a tree over `source` may follow. */
function followedHead(source: TreeSource): Promise<AuditHead> {
  return source.acknowledgedHead ? source.acknowledgedHead() : source.head();
}

export interface ChainTreeHooks {
  /** Each leaf as it is added: the tree's size with it and the record's hash. */
  pushed(size: number, hash: string): void;
  /** The tree grew in order, or a catch-up ended: time to see whether a checkpoint is due. */
  grew(): void;
}

const CATCH_UP_LINES = 10_000;

export class ChainTree {
  private readonly thread = new TreeThread();
  /** Records that arrived ahead of the tree (it is catching up below them). */
  private readonly ahead = new Map<number, string>();
  /** The hash of the last record in the tree. */
  lastHash = '';
  private catchingUp: Promise<void> | null = null;
  private catchUpTarget = 0;
  /** Proofs waiting for the tree to reach a size: released when it does, or when the catch-up ends short of it. */
  private readonly waiting = new Set<{ size: number; release: () => void }>();
  private closed = false;

  /** `name` is what the log lines call it: "the proof tree", "the proof tree of chain 2". */
  constructor(private readonly source: TreeSource, private readonly log: (line: string) => void, private readonly hooks: ChainTreeHooks, private readonly name = 'the proof tree') {}

  get size(): number {
    return this.thread.size;
  }

  /** The seq a catch-up in progress reads to, or null when none runs. */
  get catchingUpTo(): number | null {
    return this.catchingUp ? this.catchUpTarget : null;
  }

  busySeconds(): number {
    return this.thread.busySeconds();
  }

  /**
   * Starts reading back what the store holds, up to the head the tree may follow; resolves to the seq of the
   * store's own head, so the caller can see whether a stored checkpoint covers records the log no longer holds.
   */
  async start(): Promise<number> {
    const [head, followed] = await Promise.all([this.source.head(), followedHead(this.source)]);
    if (followed.seq > 0) this.catchUp(followed.seq);
    return head.seq;
  }

  /** Called with every record this instance appended to the chain, in seq order. */
  observe(record: Pick<AuditRecord, 'seq' | 'hash'>): void {
    if (record.seq <= this.thread.size) return;
    if (record.seq === this.thread.size + 1 && this.catchingUp === null) {
      this.push(record.hash);
      this.hooks.grew();
      return;
    }
    this.ahead.set(record.seq, record.hash);
    this.catchUp(record.seq - 1);
  }

  private push(hash: string): void {
    this.thread.append(hash);
    this.lastHash = hash;
    this.hooks.pushed(this.thread.size, hash);
    for (const waiter of this.waiting) if (waiter.size <= this.thread.size) this.release(waiter);
  }

  private release(waiter: { size: number; release: () => void }): void {
    this.waiting.delete(waiter);
    waiter.release();
  }

  /** Takes in-order records that were waiting for the tree to reach them. */
  private drainAhead(): void {
    for (let hash = this.ahead.get(this.thread.size + 1); hash !== undefined; hash = this.ahead.get(this.thread.size + 1)) {
      this.ahead.delete(this.thread.size + 1);
      this.push(hash);
    }
  }

  /** Reads records up to `target` from the store, a chunk at a time, in one background loop. */
  catchUp(target: number): void {
    this.catchUpTarget = Math.max(this.catchUpTarget, target);
    this.catchingUp ??= this.readForward().catch((error: Error) => {
      this.log(`audit: ${this.name} could not read the log (${error.message}); it retries on its next tick`);
    }).finally(() => {
      this.catchingUp = null;
      this.drainAhead();
      for (const waiter of this.waiting) this.release(waiter);
      this.hooks.grew();
    });
  }

  private async readForward(): Promise<void> {
    while (this.thread.size < this.catchUpTarget && !this.closed) {
      this.drainAhead();
      if (this.thread.size >= this.catchUpTarget) break;
      const from = this.thread.size + 1;
      const lines = await this.source.readLines(from, Math.min(CATCH_UP_LINES, this.catchUpTarget - this.thread.size));
      if (lines.length === 0) throw new Error(`record ${from} is not in the log yet`);
      for (const [i, line] of lines.entries()) {
        if (this.thread.size !== from + i - 1) break;
        const hash = line.toString('latin1', 0, 64);
        if (!isSha256Hex(hash)) throw new Error(`record ${from + i} does not start with a hash`);
        this.push(hash);
      }
      // Lets appends and requests run between chunks of a long catch-up.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Idle instances still follow records other instances append; rejects when the store does not answer. */
  async follow(): Promise<void> {
    const head = await followedHead(this.source);
    if (head.seq > this.thread.size) this.catchUp(head.seq);
    else this.hooks.grew();
  }

  /**
   * Null once the tree holds `size` leaves; else why not, and a catch-up toward it is started. A tree a chunk or
   * less behind (the records another instance appended since the last tick) reads them first, so a checkpoint
   * signed by one instance is provable by every instance at once; a longer read-back (a start) is not waited for.
   */
  async reach(size: number): Promise<string | null> {
    // Twice: a catch-up that was ending as this one asked stops short of it without an error.
    for (let tries = 0; tries < 2 && this.thread.size < size; tries++) {
      this.catchUp(size);
      if (this.catchUpTarget - this.thread.size > CATCH_UP_LINES) break;
      await new Promise<void>((release) => this.waiting.add({ size, release }));
    }
    if (this.thread.size >= size) return null;
    return `${this.name} is reading the log back (${this.thread.size} of ${size} records); try again shortly`;
  }

  root(size: number): Promise<string> {
    return this.thread.root(size);
  }

  leaf(index: number): Promise<string> {
    return this.thread.leaf(index);
  }

  inclusionProof(index: number, size: number): Promise<string[]> {
    return this.thread.inclusionProof(index, size);
  }

  consistencyProof(first: number, second: number): Promise<string[]> {
    return this.thread.consistencyProof(first, second);
  }

  /** Stops reading: a catch-up in progress ends after its chunk. */
  async settle(): Promise<void> {
    this.closed = true;
    await this.catchingUp;
  }

  /** Whether a catch-up is still under way after settle() (the tree does not hold what the store does). */
  get idle(): boolean {
    return this.catchingUp === null;
  }

  async close(): Promise<void> {
    await this.settle();
    await this.thread.close();
  }
}
