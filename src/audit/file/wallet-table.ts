// The wallet-head table on disk: wallet key -> (line position, record hash), a linear-hashing file of 4 KiB pages.
//
// Linear hashing grows the table one bucket at a time (a split rewrites one bucket),
// so an insert never waits for a whole-table rehash, and all it keeps in memory is a
// few numbers, whatever the number of wallets. Every change is a positional write
// made in an order that a process crash cannot turn into a lost wallet (see split).
//
// wallets.idx: page 0 is the header (magic, round, split pointer, overflow pages, wallets,
// applied mark); bucket b is page b + 1.
// wallets.ovf: overflow pages chained from a full bucket, page k (1-based) at byte (k - 1) * 4096.
// Page layout: wallet-pages.ts.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { EvictionCursor } from '../../store/eviction-cursor.js';
import {
  HASH_AT, PAGE, PAGE_HEAD, POS_AT, SLOT, SLOTS, addSlot, copySlot, findSlot, forEachSlot, keyNumber, readPage, setSlot, writeAll,
} from './wallet-pages.js';

export { KEY_BYTES } from './wallet-pages.js';
export const TABLE_FILE_NAME = 'wallets.idx';
export const OVERFLOW_FILE_NAME = 'wallets.ovf';
/** Buckets of a fresh table; the first round of splits doubles it. */
const FIRST_ROUND = 64;
/** Split while wallets exceed this share of the slots: about 1 lookup in 100 then reads an overflow page. */
const LOAD = 0.5;
/** Pages kept in memory (4 MiB): a commit's lookup, its append and hot wallets' buckets read each page once. */
const CACHED_PAGES = 1024;
const MAGIC = 0x31425457;

export interface WalletHead {
  /** 1-based line position of the wallet's newest record. */
  pos: number;
  /** That record's hash, 32 bytes (a copy). */
  hash: Buffer;
}

/** One page of a bucket's chain; `overflow` is its page number in wallets.ovf, 0 for the bucket's own page. */
interface Link {
  page: Buffer;
  overflow: number;
}

/** A chain longer than all overflow pages revisits one: only damage to the file does that. */
const loops = (bucket: number) => new Error(`${TABLE_FILE_NAME}: bucket ${bucket} loops; the index is corrupt`);

export class WalletTable {
  private level = 0;
  private split = 0;
  private wallets = 0;
  /** Line position through which every record's wallet head is in the table. */
  applied = 0;
  private overflowPages: number;
  /** Page contents by id (bucket b: b, overflow page k: -k), least recently used first; always what the file holds. */
  private readonly cache = new Map<number, Buffer>();
  private readonly oldestPage = new EvictionCursor(this.cache);

  private constructor(private readonly fd: number, private readonly overflow: number) {
    this.overflowPages = Math.ceil(fstatSync(overflow).size / PAGE);
  }

  /** Opens (creating) the table in `dir`; `intact` is false when the header is missing or foreign. */
  static open(dir: string): { table: WalletTable; intact: boolean } {
    const flags = constants.O_RDWR | constants.O_CREAT;
    const fd = openSync(join(dir, TABLE_FILE_NAME), flags, 0o644);
    const table = new WalletTable(fd, openSync(join(dir, OVERFLOW_FILE_NAME), flags, 0o644));
    const head = readPage(fd, 0);
    if (head.readUInt32LE(0) !== MAGIC) return { table, intact: false };
    [table.level, table.split, table.wallets, table.applied] = [head.readUInt32LE(4), head.readUInt32LE(8), head.readDoubleLE(16), head.readDoubleLE(24)];
    // Pages are written before the header counts them, so fewer pages than it counts means a file was cut or lost.
    const pagesKept = fstatSync(fd).size >= (table.buckets() + 1) * PAGE && table.overflowPages >= head.readUInt32LE(12);
    return { table, intact: pagesKept };
  }

  /** Empties the table: FIRST_ROUND empty buckets (zero pages), no overflow. */
  reset(): void {
    ftruncateSync(this.overflow, 0);
    ftruncateSync(this.fd, 0);
    ftruncateSync(this.fd, (FIRST_ROUND + 1) * PAGE);
    [this.level, this.split, this.wallets, this.applied, this.overflowPages] = [0, 0, 0, 0, 0];
    this.cache.clear();
    this.writeHeader();
  }

  get(key: Buffer): WalletHead | null {
    const bucket = this.bucketOf(key);
    let link: Link | null = this.link(bucket, 0);
    for (let hops = 0; link; link = this.next(link.page), hops++) {
      if (hops > this.overflowPages) throw loops(bucket);
      const at = findSlot(link.page, key);
      if (at !== -1) {
        return { pos: link.page.readUIntLE(at + POS_AT, 6), hash: Buffer.from(link.page.subarray(at + HASH_AT, at + SLOT)) };
      }
    }
    return null;
  }

  /**
   * Makes (pos, hash) the wallet's head and returns the position it replaced (0 for
   * a new wallet). With `onlyIfNewer` an existing later head is kept (recovery replays).
   */
  put(key: Buffer, pos: number, hash: Buffer, onlyIfNewer = false): number {
    const bucket = this.bucketOf(key);
    const chain = this.readChain(bucket);
    for (const link of chain) {
      const at = findSlot(link.page, key);
      if (at === -1) continue;
      const old = link.page.readUIntLE(at + POS_AT, 6);
      if (onlyIfNewer && old >= pos) return old;
      setSlot(link.page, at, pos, hash);
      this.writeSlot(bucket, link, at);
      return old;
    }
    this.insert(bucket, chain, key, pos, hash);
    this.wallets++;
    while (this.wallets > LOAD * SLOTS * this.buckets()) this.splitNext();
    return 0;
  }

  /**
   * Calls `visit` with the key of every slot in both files, reachable or not (a crash
   * in a split can leave unreachable copies): every wallet held, and perhaps a few more.
   */
  forEachKey(visit: (page: Buffer, at: number) => void): void {
    forEachSlot(this.fd, PAGE, visit);
    forEachSlot(this.overflow, 0, visit);
  }

  /** Records that every head up to `pos` is written; recovery replays only what follows. */
  markApplied(pos: number): void {
    this.applied = pos;
    this.writeHeader();
  }

  sync(): void {
    fsyncSync(this.overflow);
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.overflow);
    closeSync(this.fd);
  }

  private buckets(): number {
    return FIRST_ROUND * 2 ** this.level + this.split;
  }

  private writeHeader(): void {
    const head = Buffer.alloc(32);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(this.level, 4);
    head.writeUInt32LE(this.split, 8);
    head.writeUInt32LE(this.overflowPages, 12);
    head.writeDoubleLE(this.wallets, 16);
    head.writeDoubleLE(this.applied, 24);
    writeAll(this.fd, head, 0);
  }

  private bucketOf(key: Buffer): number {
    const round = FIRST_ROUND * 2 ** this.level;
    const bucket = keyNumber(key) % round;
    return bucket < this.split ? keyNumber(key) % (2 * round) : bucket;
  }

  private primaryAt(bucket: number): number {
    return (bucket + 1) * PAGE;
  }

  /** A page of the bucket's chain (its own page when `overflow` is 0), from the cache or the file. */
  private link(bucket: number, overflow: number): Link {
    const id = overflow === 0 ? bucket : -overflow;
    let page = this.cache.get(id);
    if (page === undefined) {
      page = overflow === 0 ? readPage(this.fd, this.primaryAt(bucket)) : readPage(this.overflow, (overflow - 1) * PAGE);
    } else {
      this.cache.delete(id);
    }
    this.remember(id, page);
    return { page, overflow };
  }

  private remember(id: number, page: Buffer): void {
    this.cache.set(id, page);
    if (this.cache.size > CACHED_PAGES) this.oldestPage.evictOldest();
  }

  private next(page: Buffer): Link | null {
    const overflow = page.readUInt32LE(4);
    return overflow === 0 ? null : this.link(-1, overflow);
  }

  private readChain(bucket: number): Link[] {
    const chain: Link[] = [this.link(bucket, 0)];
    for (let link = this.next(chain[0].page); link; link = this.next(link.page)) {
      chain.push(link);
      if (chain.length > this.overflowPages + 1) throw loops(bucket);
    }
    return chain;
  }

  /** Writes the page and makes it the cached copy; a failed write throws, and the thread then refuses all work. */
  private writeLink(bucket: number, link: Link): void {
    if (link.overflow === 0) writeAll(this.fd, link.page, this.primaryAt(bucket));
    else writeAll(this.overflow, link.page, (link.overflow - 1) * PAGE);
    const id = link.overflow === 0 ? bucket : -link.overflow;
    this.cache.delete(id);
    this.remember(id, link.page);
  }

  /**
   * A head that moved changes one slot: only its bytes are written (the cached page already holds
   * them), not the page around it; in a fleet nearly every put is such a move (issue 30).
   */
  private writeSlot(bucket: number, link: Link, at: number): void {
    const start = link.overflow === 0 ? this.primaryAt(bucket) : (link.overflow - 1) * PAGE;
    writeAll(link.overflow === 0 ? this.fd : this.overflow, link.page.subarray(at, at + SLOT), start + at);
  }

  /** A new overflow page is written before the page that links to it, so a crash leaves it unreachable, not half-linked. */
  private insert(bucket: number, chain: Link[], key: Buffer, pos: number, hash: Buffer): void {
    let link = chain.find((l) => l.page.readUInt16LE(0) < SLOTS);
    if (!link) {
      const last = chain[chain.length - 1];
      link = { page: Buffer.alloc(PAGE), overflow: ++this.overflowPages };
      last.page.writeUInt32LE(link.overflow, 4);
      addSlot(link.page, key, pos, hash);
      this.writeLink(bucket, link);
      this.writeLink(bucket, last);
      return;
    }
    addSlot(link.page, key, pos, hash);
    this.writeLink(bucket, link);
  }

  /**
   * Splits the next bucket of the round into itself and its image one round up.
   * Order matters for a crash: the image is written first (unreachable until the
   * header moves the split pointer), then the header, then the old bucket loses
   * the moved slots. A crash before that last step leaves copies in the old
   * bucket that no lookup reaches (their keys route to the image); the bucket's
   * next split drops them.
   */
  private splitNext(): void {
    const round = FIRST_ROUND * 2 ** this.level;
    const [from, to] = [this.split, this.split + round];
    const chain = this.readChain(from);
    const moved: Buffer[] = [];
    const kept = chain.map((link) => this.partition(link, from, to, 2 * round, moved));
    this.writeFreshBucket(to, moved);
    this.split++;
    if (this.split === round) [this.level, this.split] = [this.level + 1, 0];
    this.writeHeader();
    for (const [i, link] of kept.entries()) if (link !== chain[i]) this.writeLink(from, link);
  }

  /** The link without the slots that now route elsewhere (those for `to` are collected); the same link when nothing moved. */
  private partition(link: Link, from: number, to: number, modulus: number, moved: Buffer[]): Link {
    const page = Buffer.alloc(PAGE);
    page.writeUInt32LE(link.page.readUInt32LE(4), 4);
    const count = link.page.readUInt16LE(0);
    for (let i = 0, at = PAGE_HEAD; i < count; i++, at += SLOT) {
      const bucket = keyNumber(link.page, at) % modulus;
      if (bucket === from) copySlot(page, link.page.subarray(at, at + SLOT));
      else if (bucket === to) moved.push(link.page.subarray(at, at + SLOT));
    }
    return page.readUInt16LE(0) === count ? link : { page, overflow: link.overflow };
  }

  /** Writes a bucket that no lookup reaches yet: overflow pages first, its own page last. */
  private writeFreshBucket(bucket: number, slots: Buffer[]): void {
    let nextOverflow = 0;
    for (let first = Math.max(0, Math.floor((slots.length - 1) / SLOTS) * SLOTS); first >= 0; first -= SLOTS) {
      const page = Buffer.alloc(PAGE);
      page.writeUInt32LE(nextOverflow, 4);
      for (const slot of slots.slice(first, first + SLOTS)) copySlot(page, slot);
      const overflow = first === 0 ? 0 : ++this.overflowPages;
      this.writeLink(bucket, { page, overflow });
      nextOverflow = overflow;
    }
  }
}
