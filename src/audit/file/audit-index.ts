// The file audit log's index on disk: line positions and wallet heads, kept by the index thread with positional I/O.
//
// A batch of written lines is indexed in two steps. On arrival its entries are
// written (one write) and its wallet heads are held as pending, so a question asked
// right after is answered at once; the heads go into the wallet table later, a slice
// at a time between questions, so the event loop never waits for table writes. The
// pending heads are bounded: past PENDING_LIMIT the oldest are written before the
// next message is taken.
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

interface Job {
  /** Position of the batch's last line: the table's mark once its heads are in. */
  last: number;
  /** The newest head of each wallet in the batch. */
  heads: Array<[wallet: string, head: Head]>;
  /** How many of them are in the table. */
  done: number;
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
    this.jobs.push({ last: this.records.count, heads: [...heads], done: 0 });
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

  /** Writes up to `limit` pending heads into the table, oldest batch first; true while some remain. */
  applyHeads(limit: number): boolean {
    for (let left = limit; left > 0 && this.jobs.length > 0;) {
      const job = this.jobs[0];
      for (; left > 0 && job.done < job.heads.length; left--, job.done++, this.pendingCount--) {
        const [wallet, [pos, hash]] = job.heads[job.done];
        this.table.put(walletKey(wallet), pos, Buffer.from(hash, 'hex'));
      }
      if (job.done < job.heads.length) break;
      this.table.markApplied(job.last);
      for (const [wallet, [pos]] of job.heads) if (this.pending.get(wallet)?.[0] === pos) this.pending.delete(wallet);
      this.jobs.shift();
    }
    return this.jobs.length > 0;
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
