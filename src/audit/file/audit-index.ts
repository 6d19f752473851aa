// The file audit log's index on disk: line positions and wallet heads, kept by the index thread with positional I/O.
//
// A batch of written lines is indexed in two steps. On arrival its entries are
// written (one write) and its wallet heads are held as pending, so a question asked
// right after is answered at once. The heads go into the wallet table later, in runs:
// a run takes every batch waiting and writes each wallet's newest head once, a slice
// at a time between questions, then marks the run's last batch applied. A fleet that
// evaluates the same wallets over and over writes each wallet's slot once per run, not
// once per verdict (issue 30). The pending heads are bounded: past PENDING_LIMIT the
// oldest are written before the next message is taken.
import * as crypto from 'node:crypto';
import { ENTRY_BYTES, RecordIndex, writeEntry, type LogIdentity } from './record-index.js';
import { KEY_BYTES, WalletTable } from './wallet-table.js';
import { WalletFilter } from './wallet-filter.js';

/** Consecutive lines just written to audit.log, to be indexed after those already indexed. */
export interface IndexBatch {
  /** Offset in audit.log of the first line. */
  firstOffset: number;
  /** Each line's length with its newline. */
  lengths: number[];
  /** Each record's wallet (as stored, lower-case); null for a line that cannot be read, which joins no wallet's list. */
  wallets: Array<string | null>;
  /** Each record's hash, 64 hex; null where the wallet is null. */
  hashes: Array<string | null>;
  /** Each record's wallet's previous record (its position; 0: none), as the writer sealed it. */
  prevs: number[];
}

/** A wallet's newest record: its position and hash (64 hex). */
export type Head = [pos: number, hash: string];

/** Wallet heads held in memory before they are in the table: about 250 bytes each. */
export const PENDING_LIMIT = 16_384;
/** Pending heads at which a run starts without waiting for the thread's timer (index thread: HEADS_RUN_MS). */
const RUN_AT = PENDING_LIMIT / 4;

interface Job {
  /** Position of the batch's last line: the table's mark once its heads are in. */
  last: number;
  /** The newest head of each wallet in the batch. */
  heads: Array<[wallet: string, head: Head]>;
}

/** Batches whose heads are being written: each wallet's newest head among them, written once. */
interface Run {
  heads: Array<[wallet: string, head: Head]>;
  /** How many of them are in the table. */
  done: number;
  /** The batches it covers: the oldest in `jobs`. */
  jobs: number;
  /** Position of the last batch's last line: the table's mark once the run is in. */
  last: number;
}

/**
 * The table's key for a wallet: the first 128 bits of SHA-256 of its stored form.
 * A wallet is any string a caller sends, so the key must resist chosen collisions;
 * two wallets sharing a key would share a chain.
 */
export function walletKey(wallet: string): Buffer {
  const digest = typeof crypto.hash === 'function' ? crypto.hash('sha256', wallet, 'buffer') : crypto.createHash('sha256').update(wallet).digest();
  return digest.subarray(0, KEY_BYTES);
}

export class AuditIndex {
  private readonly jobs: Job[] = [];
  private readonly pending = new Map<string, Head>();
  private pendingCount = 0;
  private run: Run | null = null;

  constructor(
    readonly records: RecordIndex,
    readonly table: WalletTable,
    public suspectLines: number,
    private readonly durable: boolean,
    private readonly bootId: string,
  ) {}

  /** Each wallet's newest record, or null for a wallet without records. */
  heads(wallets: string[]): Array<Head | null> {
    return wallets.map((wallet) => this.head(wallet));
  }

  /**
   * Writes the batch's entries and holds its wallet heads as pending. The order of
   * writes is what recovery relies on: entries (each naming its wallet's previous
   * record) first, then the wallet heads, then the table's mark that they are in.
   */
  arrive(batch: IndexBatch): void {
    const first = this.records.count + 1;
    const entries = Buffer.allocUnsafe(batch.lengths.length * ENTRY_BYTES);
    const heads = new Map<string, Head>();
    let offset = batch.firstOffset;
    for (const [i, length] of batch.lengths.entries()) {
      writeEntry(entries, i, offset, length, batch.prevs[i]);
      offset += length;
      const wallet = batch.wallets[i];
      if (wallet !== null) heads.set(wallet, [first + i, batch.hashes[i] as string]);
    }
    this.records.append(entries);
    for (const [wallet, head] of heads) this.pending.set(wallet, head);
    this.jobs.push({ last: this.records.count, heads: [...heads] });
    this.pendingCount += heads.size;
    if (this.pendingCount > PENDING_LIMIT) this.applyHeads(this.pendingCount - PENDING_LIMIT);
  }

  /** Indexes a batch completely, finding each record's previous one itself (recovery has no writer to ask). */
  append(batch: Omit<IndexBatch, 'prevs'>): void {
    const first = this.records.count + 1;
    const latest = new Map<string, number>();
    const prevs = batch.wallets.map((wallet, i) => {
      if (wallet === null) return 0;
      const prev = latest.get(wallet) ?? this.head(wallet)?.[0] ?? 0;
      latest.set(wallet, first + i);
      return prev;
    });
    this.arrive({ ...batch, prevs });
    this.applyHeads(Number.POSITIVE_INFINITY);
  }

  /** True when enough heads wait that a run should start now rather than on the thread's timer. */
  get runDue(): boolean {
    return this.run !== null || this.pendingCount >= RUN_AT;
  }

  /** True while heads wait for the table. */
  get headsPending(): boolean {
    return this.run !== null || this.jobs.length > 0;
  }

  /**
   * Writes up to `limit` heads into the table: those of the run under way, else of a run
   * made of every batch waiting, oldest first; true while some remain.
   */
  applyHeads(limit: number): boolean {
    for (let left = limit; left > 0 && (this.run !== null || this.jobs.length > 0);) {
      const run = (this.run ??= this.startRun());
      for (; left > 0 && run.done < run.heads.length; left--, run.done++, this.pendingCount--) {
        const [wallet, [pos, hash]] = run.heads[run.done];
        this.table.put(walletKey(wallet), pos, Buffer.from(hash, 'hex'));
      }
      if (run.done < run.heads.length) break;
      this.table.markApplied(run.last);
      for (const [wallet, [pos]] of run.heads) if (this.pending.get(wallet)?.[0] === pos) this.pending.delete(wallet);
      this.jobs.splice(0, run.jobs);
      this.run = null;
    }
    return this.headsPending;
  }

  /**
   * Every batch waiting, each wallet's newest head once: entries then heads then mark, as recovery
   * expects. From here the pending count holds the run's heads still to write, not the batches'.
   */
  private startRun(): Run {
    const newest = new Map<string, Head>();
    let covered = 0;
    for (const job of this.jobs) {
      for (const [wallet, head] of job.heads) newest.set(wallet, head);
      covered += job.heads.length;
    }
    this.pendingCount += newest.size - covered;
    return { heads: [...newest], done: 0, jobs: this.jobs.length, last: this.jobs[this.jobs.length - 1].last };
  }

  /** Raw entries (ENTRY_BYTES each) for positions first .. first + n - 1. */
  range(first: number, n: number): Buffer {
    return n > 0 ? this.records.read(first, n) : Buffer.alloc(0);
  }

  /** The wallet's newest `count` records, newest first, as (position, offset, length) triples. */
  walletEntries(wallet: string, count: number): Float64Array {
    const found: number[] = [];
    let pos = this.head(wallet)?.[0] ?? 0;
    while (pos > 0 && found.length < count * 3) {
      const entry = this.records.entry(pos);
      found.push(pos, entry.offset, entry.length);
      if (entry.prev >= pos) throw new Error(`audit index: record ${pos} links forward to ${entry.prev}; the index is corrupt`);
      pos = entry.prev;
    }
    return Float64Array.from(found);
  }

  /** A filter of every wallet the index holds (wallet-filter.ts); pending heads go into the table first, so it has them all. */
  walletFilter(bytes: number): WalletFilter {
    this.applyHeads(Number.POSITIVE_INFINITY);
    const filter = WalletFilter.empty(bytes);
    this.table.forEachKey((page, at) => filter.add(page, at));
    return filter;
  }

  /** Marks the index in use: until a clean close, only this boot may trust it. */
  markOpen(): void {
    this.records.writeHeader({ clean: false, suspectLines: this.suspectLines, identity: { size: 0, mtimeNs: 0n, ino: 0n }, bootId: this.bootId });
    if (this.durable) this.records.sync();
  }

  /** Writes what is pending, syncs everything, then records that the index matches the log as `identity` describes it. */
  close(identity: LogIdentity): void {
    this.applyHeads(Number.POSITIVE_INFINITY);
    if (this.durable) {
      this.table.sync();
      this.records.sync();
    }
    this.records.writeHeader({ clean: true, suspectLines: this.suspectLines, identity, bootId: this.bootId });
    if (this.durable) this.records.sync();
    this.records.close();
    this.table.close();
  }

  private head(wallet: string): Head | null {
    const pending = this.pending.get(wallet);
    if (pending) return pending;
    const found = this.table.get(walletKey(wallet));
    return found ? [found.pos, found.hash.toString('hex')] : null;
  }
}
