// The event loop's side of the audit index thread: requests out, answers back, failures reported once.
//
// The index files are read and written synchronously on that thread (a positional
// read from the page cache costs about 1 us there against about 12 us through the
// libuv pool), so the event loop pays for messages, not for disk writes. A message
// costs the sender about 8 us whatever it holds, so appends ride along with the next
// question, or go together at the end of the loop turn. Messages are handled in the
// order they are sent: a question asked after an append was handed over is answered
// with that append indexed.
import { Worker } from 'node:worker_threads';
import { busySeconds } from '../../threads/busy-time.js';
import type { Head, IndexBatch } from './audit-index.js';
import type { IndexInit, IndexReady } from './index-recovery.js';
import type { LogIdentity } from './record-index.js';
import { WalletFilter } from './wallet-filter.js';

const WORKER_FILE = new URL('../../../workers/audit-index.js', import.meta.url);

/**
 * The thread's own heap, capped: what it holds is bounded by design (pending heads, one
 * catch-up batch, queued messages; its old space measured 9-21 MB through 950,000 appends),
 * and without a cap V8 lets a rebuild's garbage grow the heap by about 100 MB before
 * collecting it. Past the cap the thread fails, and the log with it (fail closed). The cap
 * is well above the live size: at 64 MB, once the log passed about 260,000 records V8 kept
 * this heap marking without pause, and the thread's CPU a request went from 3 to 45 us
 * (ARCHITECTURE.md "Audit index thread").
 */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

export type IndexRequest =
  | { op: 'heads'; id: number; wallets: string[] }
  | { op: 'range'; id: number; first: number; count: number }
  | { op: 'wallet'; id: number; wallet: string; count: number }
  | { op: 'close'; id: number; identity: LogIdentity };

/** Batches to index first, then at most one request. */
export interface IndexMessage {
  appends: IndexBatch[];
  request?: IndexRequest;
}

export type IndexReply =
  | { op: 'ready'; ready: IndexReady; filter: Uint8Array }
  | { op: 'answer'; id: number; value: unknown }
  | { op: 'refused'; id: number; message: string }
  | { op: 'failed'; message: string };

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
/** A request before it is numbered. */
type Question = WithoutId<IndexRequest>;

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** Records handed over before the question: answered means indexed. */
  posted: number;
}

/** Records handed over but not yet known to be indexed, beyond which the writer waits (see backlog). */
export const BACKLOG_LIMIT = 65_536;

export class IndexClient {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private failure: Error | undefined;
  private closed = false;
  private started: Waiter | undefined;
  private appends: IndexBatch[] = [];
  private flushing = false;
  private posted = 0;
  private confirmed = 0;
  /** Called once when the thread fails or dies; the log then fails closed. */
  onFailure: (error: Error) => void = () => undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: IndexReply) => this.receive(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`audit index thread exited with code ${code}`)));
  }

  /** Seconds the index thread has been busy since it started (for /metrics). */
  busySeconds(): number {
    return busySeconds(this.worker);
  }

  /** Starts the thread, which brings the index up to date with the log before it answers. */
  static start(init: IndexInit): Promise<{ client: IndexClient; ready: IndexReady; filter: WalletFilter }> {
    const client = new IndexClient(new Worker(WORKER_FILE, { workerData: init, resourceLimits: THREAD_HEAP }));
    return new Promise<unknown>((resolve, reject) => {
      client.started = { resolve, reject, posted: 0 };
    }).then(
      (started) => {
        client.settle();
        const { ready, filter } = started as { ready: IndexReady; filter: Uint8Array };
        return { client, ready, filter: new WalletFilter(filter) };
      },
      async (error: Error) => {
        await client.worker.terminate();
        throw error;
      },
    );
  }

  /**
   * A new thread for a log whose thread failed (ARCHITECTURE.md "A log that heals"): it recovers the
   * index as a start does and must find exactly the records and head the log acknowledged.
   */
  static async restart(init: IndexInit, expected: { records: number; hash: string }): Promise<{ client: IndexClient; filter: WalletFilter }> {
    const { client, ready, filter } = await IndexClient.start(init);
    if (ready.records !== expected.records || ready.head.hash !== expected.hash) {
      await client.terminate();
      throw new Error(`the restarted audit index found ${ready.records} records, not ${expected.records}`);
    }
    return { client, filter };
  }

  /** Each wallet's newest record (position and hash), or null for a wallet without records. */
  heads(wallets: string[]): Promise<Array<Head | null>> {
    return this.ask({ op: 'heads', wallets }) as Promise<Array<Head | null>>;
  }

  /** Raw entries (see record-index.ts) for positions first .. first + count - 1. */
  async range(first: number, count: number): Promise<Buffer> {
    const bytes = (await this.ask({ op: 'range', first, count })) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The wallet's newest `count` records, newest first, as (position, offset, length) triples. */
  walletEntries(wallet: string, count: number): Promise<Float64Array> {
    return this.ask({ op: 'wallet', wallet, count }) as Promise<Float64Array>;
  }

  /**
   * Records handed over that the thread may not have indexed yet. Appends need no
   * answer, so a writer whose wallets are all recent never waits for the thread;
   * past BACKLOG_LIMIT it should (see drained), or messages would pile up unbounded.
   */
  get backlog(): number {
    return this.posted - this.confirmed;
  }

  /** The thread failed or died; a new one must be started (the log heals by doing so). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Resolves once everything handed over so far is indexed. */
  async drained(): Promise<void> {
    await this.ask({ op: 'heads', wallets: [] });
  }

  /** Hands over lines already written to the log; no answer (a failure comes through onFailure). */
  append(batch: IndexBatch): void {
    if (this.failure !== undefined) return;
    this.posted += batch.lengths.length;
    this.appends.push(batch);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      if (this.appends.length > 0 && this.failure === undefined) this.post({ appends: this.take() });
    });
  }

  /** Marks the index clean for the log as `identity` describes it, then stops the thread. */
  async close(identity: LogIdentity): Promise<void> {
    try {
      await this.ask({ op: 'close', identity });
    } finally {
      this.closed = true;
      await this.worker.terminate();
    }
  }

  /** Stops the thread without marking anything; the next open recovers. */
  async terminate(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }

  private ask(question: Question): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject, posted: this.posted }));
    this.post({ appends: this.take(), request: { ...question, id } as IndexRequest });
    this.settle();
    return answer;
  }

  private take(): IndexBatch[] {
    const batches = this.appends;
    this.appends = [];
    return batches;
  }

  private post(message: IndexMessage): void {
    this.worker.postMessage(message);
  }

  private receive(reply: IndexReply): void {
    if (reply.op === 'ready') this.started?.resolve({ ready: reply.ready, filter: reply.filter });
    else if (reply.op === 'failed') this.fail(new Error(`audit index failed: ${reply.message}`));
    else {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      this.confirmed = Math.max(this.confirmed, waiter?.posted ?? 0);
      if (reply.op === 'answer') waiter?.resolve(reply.value);
      else waiter?.reject(new Error(`audit index: ${reply.message}`));
      this.settle();
    }
  }

  private fail(error: Error): void {
    if (this.closed || this.failure) return;
    this.failure = error;
    this.started?.reject(error);
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    this.onFailure(error);
  }

  /**
   * The thread keeps the process alive only while an answer is awaited: an idle log
   * must not hold a process open, and appends handed over but not yet indexed are
   * recovered from the log by the next open.
   */
  private settle(): void {
    if (this.waiting.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}
