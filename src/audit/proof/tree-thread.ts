// The audit Merkle tree on a thread of its own, so the event loop spends no hashing on an append:
// it hands over record hashes in batches (a few thousand, or every 50 ms) and asks for roots and proofs by message
// (ARCHITECTURE.md "Checkpoints and proofs").
import { Worker } from 'node:worker_threads';
import { busySeconds } from '../../threads/busy-time.js';

export type TreeMessage =
  /** Record hashes, 64 hex characters each, joined: one string crosses to the thread as one copy. */
  | { kind: 'append'; hashes: string }
  | { kind: 'root'; id: number; size: number }
  | { kind: 'leaf'; id: number; index: number }
  | { kind: 'inclusion'; id: number; index: number; size: number }
  | { kind: 'consistency'; id: number; first: number; second: number };

export type TreeReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** A message without its id: the id is added when it is sent. */
type Question = { kind: Exclude<TreeMessage['kind'], 'append'>; [field: string]: unknown };

const WORKER_FILE = new URL('../../../workers/merkle-tree.js', import.meta.url);
const BATCH_LEAVES = 4_096;
const BATCH_MS = 50;

export class TreeThread {
  private readonly worker: Worker;
  private batch: string[] = [];
  private scheduled = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  /** Leaves handed over so far (some may still be in this turn's batch). */
  size = 0;
  private failure: Error | null = null;

  constructor() {
    this.worker = new Worker(WORKER_FILE);
    this.worker.unref();
    this.worker.on('message', (reply: TreeReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.ok) waiter?.resolve(reply.value);
      else waiter?.reject(new RangeError(reply.error));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the audit tree thread exited (${code})`)));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }

  /**
   * Queues the next record's hash. Batches go over when they reach BATCH_LEAVES or BATCH_MS
   * after their first hash, and before any question: the tree is read only by checkpoints and
   * proofs, which ask, so nothing waits on a batch, and the event loop posts a message every few
   * thousand records instead of every turn.
   */
  append(recordHash: string): void {
    this.batch.push(recordHash);
    this.size++;
    if (this.batch.length >= BATCH_LEAVES) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.flush(), BATCH_MS).unref();
  }

  private flush(): void {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    this.worker.postMessage({ kind: 'append', hashes: this.batch.join('') } satisfies TreeMessage);
    this.batch = [];
  }

  private ask<T>(question: Question): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    this.flush();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...question, id } as TreeMessage);
    });
  }

  /** Seconds the tree thread has been busy since it started (for /metrics). */
  busySeconds(): number {
    return busySeconds(this.worker);
  }

  root(size: number): Promise<string> {
    return this.ask({ kind: 'root', size });
  }

  leaf(index: number): Promise<string> {
    return this.ask({ kind: 'leaf', index });
  }

  inclusionProof(index: number, size: number): Promise<string[]> {
    return this.ask({ kind: 'inclusion', index, size });
  }

  consistencyProof(first: number, second: number): Promise<string[]> {
    return this.ask({ kind: 'consistency', first, second });
  }

  async close(): Promise<void> {
    this.flush();
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
