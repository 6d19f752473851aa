// The file audit log's index in LMDB (DATA_DIR/audit/index): what is derived from audit.log, never the log itself.
//
// ARCHITECTURE.md "File audit index". Four named databases in an LMDB environment of their own
// (not the store's, so a failed index commit and a failed store write never share a fate):
//   lines:   seq (uint32) -> 6-byte offset, 4-byte length with the newline, 32-byte record hash
//            (zeros for a line that does not parse, which joins no wallet's list), and the seq of the
//            same wallet's line before it (uint32, 0 for its first): a wallet's lines form a chain
//   heads:   16-byte wallet key -> the wallet's newest seq (uint32 big-endian), where its chain starts
//   facts:   page of SHARED_FACTS_PAGE seqs (uint32) -> byte offset in facts.log of the first line of that page
//            (facts-file.ts), so a facts read starts at its page without reading the file from its start
//   meta:    'closed' -> the log's size, mtime and inode at the last clean close;
//            'suspect' -> how many indexed lines were found damaged; 'probed' -> when a heal last wrote;
//            'layout' -> INDEX_LAYOUT (an index without it, or with another, is rebuilt from the log)
// Writes are synchronous transactions, made after the group's lines are written (and synced under
// AUDIT_FSYNC=always): the number of indexed lines is a floor on the acknowledged records
// (ARCHITECTURE.md "Damage is not a torn tail"), and a read after an append sees it at once.
// A group commit's transaction is not flushed on the event loop: the log's own sync flushes the
// index after it, on a libuv thread (`flush`; ARCHITECTURE.md "File audit index").
import { existsSync, renameSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { open, TransactionFlags, type Database, type RootDatabase } from 'lmdb';
import { sha256Buffer } from '../record/sha256.js';
import { indexFileDamage } from './index-file-check.js';
import { StagedLines } from './staged-lines.js';
import { RecentMap } from '../../memo/recent-map.js';

export const INDEX_DIR_NAME = 'index';
/**
 * Room a new index needs before LMDB creates it: LMDB maps its lock file, and a mapped page the disk has no block for
 * ends the process with SIGBUS instead of an error. Below this, creating fails with ENOSPC, which a start waits out
 * (ARCHITECTURE.md "A full disk at start").
 */
export const ROOM_TO_CREATE_BYTES = 1024 * 1024;
/**
 * The layout of the index's entries. 2: a wallet's lines are a chain of seqs (`prev` in each entry, `heads` for the
 * newest); layout 1 kept one key per line in a `wallets` database, whose random inserts cost the event loop some
 * 7-9 us a record at a commit (ARCHITECTURE.md "File audit index").
 */
export const INDEX_LAYOUT = 2;
const ENTRY_BYTES = 46;
const HASH_AT = 10;
const PREV_AT = 42;
const KEY_BYTES = 16;
const NO_HASH = Buffer.alloc(32);
/** lmdb's default for a synchronous transaction (abortable, committed before it returns), without the flush to disk. */
const COMMIT_WITHOUT_FLUSH = TransactionFlags.ABORTABLE | TransactionFlags.SYNCHRONOUS_COMMIT | TransactionFlags.NO_SYNC_FLUSH;
/**
 * A line's seq is always past every indexed one (committedCount + 1 onwards), so it is put with LMDB's MDB_APPEND: no
 * search down the tree for its place, and a full page is left full rather than split in half. A key out of order fails
 * the put (lmdb answers MDB_KEYEXIST with false), which then fails the commit: the index never takes a line out of order.
 */
const APPEND: Readonly<{ append: true }> = Object.freeze({ append: true });

/** One line of audit.log as the index places it. */
export interface LineEntry {
  offset: number;
  /** With the newline. */
  length: number;
  /** 64 hex, or null for a line that does not parse. */
  hash: string | null;
}

/** Lines just written to audit.log, to be indexed after those already indexed. */
export interface IndexedLine extends LineEntry {
  /** As stored (lower case); null for a line that does not parse. */
  wallet: string | null;
  /** Found at open not to parse, or to hold another seq than its line number: left for verification to name. */
  suspect?: boolean;
}

/** An indexed line with the seq of its wallet's line before it (0 for the wallet's first, or a line without a wallet). */
export interface LinkedLine extends IndexedLine {
  prev: number;
}

/** Where facts.log's lines for a page of seqs begin (facts-file.ts). */
export interface FactsMark {
  page: number;
  offset: number;
}

/** What says whether audit.log changed since the index last saw it. */
export interface LogIdentity {
  size: number;
  mtimeNs: bigint;
  ino: bigint;
}

type Meta = { size: number; mtimeNs: string; ino: string } | CheckpointsMark | number;

/** A line as the index holds it: where it is, its hash, and its wallet's line before it. */
interface StoredEntry extends LineEntry {
  prev: number;
}

/**
 * How much of checkpoints.log a start has already checked (each line's signature, and that it grows past the one
 * before): its first `end` bytes, whose SHA-256 was `sha256`, signed by `keyId`. A start that finds those bytes
 * unchanged checks only the lines after them (ARCHITECTURE.md "Checkpoints and proofs").
 */
export interface CheckpointsMark {
  end: number;
  sha256: string;
  keyId: string;
}

/** A wallet's newest record: its seq and hash (64 hex). */
export type Head = [seq: number, hash: string];

/**
 * The index's key for a wallet: the first 128 bits of SHA-256 of its stored form. A wallet is any
 * string a caller sends, so the key must resist chosen collisions; two wallets sharing a key would
 * share a chain.
 */
function walletKey(wallet: string): Buffer {
  let key = WALLET_KEYS.get(wallet);
  if (key === undefined) WALLET_KEYS.set(wallet, (key = sha256Buffer(wallet).subarray(0, KEY_BYTES)));
  return key;
}

/**
 * Keys of the wallets met lately, read by LMDB and never written to: a fleet's wallet is looked up and its head
 * written again and again, and finding its key in a map costs a fraction of its digest. Bounded (RecentMap).
 */
const WALLET_KEYS = new RecentMap<string, Buffer>(16_384);

function seqValue(seq: number): Buffer {
  const value = Buffer.allocUnsafe(4);
  value.writeUInt32BE(seq, 0);
  return value;
}

function encodeEntry(line: LinkedLine): Buffer {
  const entry = Buffer.allocUnsafe(ENTRY_BYTES);
  entry.writeUIntLE(line.offset, 0, 6);
  entry.writeUInt32LE(line.length, 6);
  if (line.hash === null) NO_HASH.copy(entry, HASH_AT);
  else entry.write(line.hash, HASH_AT, 32, 'hex');
  entry.writeUInt32LE(line.prev, PREV_AT);
  return entry;
}

function decodeEntry(entry: Buffer): StoredEntry {
  const hash = entry.subarray(HASH_AT, HASH_AT + 32);
  return {
    offset: entry.readUIntLE(0, 6), length: entry.readUInt32LE(6), hash: hash.equals(NO_HASH) ? null : hash.toString('hex'),
    prev: entry.readUInt32LE(PREV_AT),
  };
}

/** RootDatabase#sync as lmdb 3 has it (open.js). */
interface LmdbSync {
  sync(done: (error?: Error) => void): void;
}

export class LogIndex {
  /** Lines committed to LMDB: seqs 1 .. committedCount; the staged ones follow. */
  private committedCount: number;
  private readonly staged: StagedLines;

  private constructor(
    readonly path: string,
    private readonly root: RootDatabase,
    private readonly lines: Database<Buffer, number>,
    private readonly heads: Database<Buffer, Buffer>,
    private readonly facts: Database<number, number>,
    private readonly meta: Database<Meta, string>,
    private readonly durable: boolean,
  ) {
    const last = [...lines.getKeys({ reverse: true, limit: 1 })][0];
    this.committedCount = typeof last === 'number' ? last : 0;
    this.staged = new StagedLines(this.committedCount + 1);
  }

  /** Lines indexed: seqs 1 .. count, the staged ones included. */
  get count(): number {
    return this.committedCount + this.staged.size;
  }

  /** Whether DIR holds an index: a start reads it before deciding anything, and creates none to do so. */
  static exists(dir: string): boolean {
    return existsSync(join(dir, INDEX_DIR_NAME, 'data.mdb'));
  }

  /** Opens (creating) DIR/index; `durable` false (AUDIT_FSYNC=off) leaves flushing to the kernel. */
  static open(dir: string, durable: boolean): LogIndex {
    const path = join(dir, INDEX_DIR_NAME);
    if (!LogIndex.exists(dir)) refuseWithoutRoom(dir, path);
    // Without overlappingSync, a transaction that skips its flush returns at once (with it, each commit still waits for
    // the last one's flush), and an explicit sync makes every commit before it durable, as LMDB's NOSYNC describes.
    const root = open({ path, noSync: !durable, overlappingSync: false });
    try {
      const lines = root.openDB<Buffer, number>({ name: 'lines', keyEncoding: 'uint32', encoding: 'binary' });
      const heads = root.openDB<Buffer, Buffer>({ name: 'heads', keyEncoding: 'binary', encoding: 'binary' });
      const facts = root.openDB<number, number>({ name: 'facts', keyEncoding: 'uint32' });
      const meta = root.openDB<Meta, string>({ name: 'meta' });
      const index = new LogIndex(path, root, lines, heads, facts, meta, durable);
      // A new index is of this layout; one with lines and another layout is rebuilt at open (index-catch-up.ts).
      if (index.count === 0 && !index.ofThisLayout) index.root.transactionSync(() => index.meta.putSync('layout', INDEX_LAYOUT));
      return index;
    } catch (error) {
      void root.close();
      throw error;
    }
  }

  /** Whether the index's entries are of INDEX_LAYOUT: one of another is read as nothing but a reason to rebuild. */
  get ofThisLayout(): boolean {
    return this.meta.get('layout') === INDEX_LAYOUT;
  }

  entry(seq: number): StoredEntry {
    const staged = this.staged.entry(seq);
    return staged !== undefined ? staged : decodeEntry(this.committedEntry(seq));
  }

  /** A committed line's entry as LMDB holds it; throws when the index has none. */
  private committedEntry(seq: number): Buffer {
    const entry = this.lines.getBinary(seq);
    if (entry === undefined) throw new Error(`the audit index (${this.path}) has no entry for line ${seq} of ${this.count}`);
    return entry;
  }

  /** Entries of lines first .. first + n - 1, in order (all must be indexed). */
  range(first: number, n: number): LineEntry[] {
    const found: LineEntry[] = [];
    const committedEnd = Math.min(first + n, this.committedCount + 1);
    if (first < committedEnd) for (const { value } of this.lines.getRange({ start: first, end: committedEnd })) found.push(decodeEntry(value));
    for (let seq = Math.max(first, this.committedCount + 1); seq < first + n; seq++) {
      const staged = this.staged.entry(seq);
      if (staged === undefined) break;
      found.push(staged);
    }
    if (found.length !== n) throw new Error(`the audit index (${this.path}) holds ${found.length} of lines ${first}..${first + n - 1}`);
    return found;
  }

  /** The wallet's newest `limit` seqs, newest first: its chain, from its newest line back. */
  walletSeqs(wallet: string, limit: number): number[] {
    const seqs: number[] = [];
    if (limit < 1) return seqs;
    // The link is followed only while more seqs are wanted: past the last one it would read an entry for nothing.
    for (let seq = this.newestSeq(wallet); seq !== 0; seq = this.prevOf(seq)) {
      if (seqs.push(seq) === limit) break;
    }
    return seqs;
  }

  /** The wallet's newest seq, staged or committed; 0 for a wallet without lines. */
  private newestSeq(wallet: string): number {
    const staged = this.staged.newest(wallet);
    if (staged !== undefined) return staged;
    const found = this.heads.getBinary(walletKey(wallet));
    return found === undefined ? 0 : found.readUInt32BE(0);
  }

  /** The seq of the line before `seq` in its wallet's chain, 0 at its first. */
  private prevOf(seq: number): number {
    const staged = this.staged.entry(seq);
    // Only the link is read: the hash is not decoded for every line a chain walk passes.
    return staged !== undefined ? staged.prev : this.committedEntry(seq).readUInt32LE(PREV_AT);
  }

  /** The wallet's newest record, or null for a wallet without records. */
  head(wallet: string): Head | null {
    const seq = this.newestSeq(wallet);
    if (seq === 0) return null;
    return [seq, this.entry(seq).hash as string];
  }

  /**
   * Indexes lines count + 1 onwards and the facts pages their group began, in one transaction; throws (and indexes
   * none of them) when the commit fails. `flushed` false leaves the flush to disk to the next `flush()`: a group
   * commit's flush on the event loop blocked it for milliseconds each group and cost some 40 us of CPU a record
   * (ARCHITECTURE.md "File audit index").
   */
  add(lines: LinkedLine[], factsMarks: FactsMark[] = [], flushed = true): void {
    if (this.staged.size > 0) throw new Error(`the audit index (${this.path}) has ${this.staged.size} staged lines before an add`);
    this.commit(lines, factsMarks, flushed);
    this.staged.reset(this.committedCount + 1);
  }

  /**
   * Lines count + 1 onwards, each linked to its wallet's line before it: an earlier one of `lines`, else the wallet's
   * newest indexed line. For lines read back from the log (catch-up at open); the log links the lines it writes itself,
   * from the heads it sealed them on, with no index read.
   */
  link(lines: readonly IndexedLine[]): LinkedLine[] {
    const newest = new Map<string, number>();
    return lines.map((line, i) => {
      if (line.wallet === null) return { ...line, prev: 0 };
      const prev = newest.get(line.wallet) ?? this.newestSeq(line.wallet);
      newest.set(line.wallet, this.count + 1 + i);
      return { ...line, prev };
    });
  }

  /**
   * Indexes lines count + 1 onwards for reads at once, and for LMDB at the next `commitStaged`: a group commit under
   * AUDIT_FSYNC=batch or off stages its lines, and the log's sync commits them in one transaction after its fdatasync
   * (one LMDB commit a group cost some 15 us of CPU a record; ARCHITECTURE.md "File audit index").
   */
  stage(lines: LinkedLine[], factsMarks: FactsMark[]): void {
    this.staged.stage(lines, factsMarks);
  }

  /**
   * Commits the staged lines up to seq `last` (all by default), without a flush; throws, keeping them staged (reads
   * still see them), when the commit fails.
   */
  commitStaged(last = this.count): void {
    const { lines, marks } = this.staged.upTo(last);
    if (lines.length === 0 && marks.length === 0) return;
    this.commit(lines, marks, false);
    this.staged.committed(lines.length);
  }

  private commit(lines: LinkedLine[], factsMarks: FactsMark[], flushed: boolean): void {
    if (lines.length === 0 && factsMarks.length === 0) return;
    const first = this.committedCount + 1;
    const suspect = lines.filter((line) => line.suspect).length;
    // One head a wallet a commit: a fleet's heads are a few pages, where a key a line inserted across the whole tree.
    const newest = new Map<string, number>();
    lines.forEach((line, i) => {
      if (line.wallet !== null) newest.set(line.wallet, first + i);
    });
    this.root.transactionSync(() => {
      if (suspect > 0) this.meta.putSync('suspect', this.suspectLines + suspect);
      for (const { page, offset } of factsMarks) this.facts.putSync(page, offset);
      for (let i = 0; i < lines.length; i++) {
        // lmdb answers a refused put with false, not an error (its typings say void): thrown here, it aborts the whole
        // transaction.
        const put = this.lines.putSync(first + i, encodeEntry(lines[i]), APPEND) as unknown as boolean;
        if (!put) {
          throw new Error(`the audit index (${this.path}) refused line ${first + i} after its last line`);
        }
      }
      for (const [wallet, seq] of newest) this.heads.putSync(walletKey(wallet), seqValue(seq));
    }, flushed ? undefined : COMMIT_WITHOUT_FLUSH);
    this.committedCount += lines.length;
  }

  /** Flushes every commit so far to disk, on a libuv thread; resolves at once for an index opened not durable. */
  flush(): Promise<void> {
    if (!this.durable) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // lmdb's sync(callback) runs mdb_env_sync(force) on a libuv thread; its typings leave it out.
      (this.root as unknown as LmdbSync).sync((error) => (error ? reject(error) : resolve()));
    });
  }

  /** The newest facts page indexed, or null before any. */
  lastFactsMark(): FactsMark | null {
    const staged = this.staged.factsMark();
    if (staged !== undefined) return staged;
    for (const { key, value } of this.facts.getRange({ reverse: true, limit: 1 })) return { page: key, offset: value };
    // A reverse range of uint32 keys never yields key 0 (lmdb 3.5): page 0's mark is read by itself, or every group
    // of page 0 would mark the page again, each at its own offset.
    const first = this.facts.get(0);
    return first === undefined ? null : { page: 0, offset: first };
  }

  /** Where facts.log's lines for `page` begin: the mark of the newest indexed page not after it, or the file's start. */
  factsStart(page: number): number {
    // Page 0 begins the file. An index written before page 0's mark was read back (lastFactsMark) may hold a later
    // offset under it, and its reverse range never yielded key 0 either: the file's start is always right.
    if (page === 0) return 0;
    const staged = this.staged.factsMark(page);
    if (staged !== undefined) return staged.offset;
    for (const { value } of this.facts.getRange({ start: page, reverse: true, limit: 1 })) return value;
    return 0;
  }

  /** Drops the facts pages, for a rebuild from facts.log. */
  clearFacts(): void {
    this.facts.clearSync();
  }

  /** Indexed lines found damaged when they were indexed at open. */
  get suspectLines(): number {
    const found = this.meta.get('suspect');
    return typeof found === 'number' ? found : 0;
  }

  /** The log as it was at the last clean close, or null after a crash (or before any close). */
  closedWith(): LogIdentity | null {
    const closed = this.meta.get('closed');
    return typeof closed === 'object' && 'ino' in closed ? { size: closed.size, mtimeNs: BigInt(closed.mtimeNs), ino: BigInt(closed.ino) } : null;
  }

  /** Records the log as a clean close leaves it, or (null) forgets it once the log may change. */
  markClosed(identity: LogIdentity | null): void {
    this.root.transactionSync(() => {
      if (identity === null) this.meta.removeSync('closed');
      else this.meta.putSync('closed', { size: identity.size, mtimeNs: String(identity.mtimeNs), ino: String(identity.ino) });
    });
  }

  /** The part of checkpoints.log checked at an earlier start or written since, or null when none is known. */
  checkedCheckpoints(): CheckpointsMark | null {
    const mark = this.meta.get('checkpoints');
    return typeof mark === 'object' && 'keyId' in mark ? mark : null;
  }

  /** Records that checkpoints.log's first `mark.end` bytes are checked; flushed with the index's next commit. */
  markCheckpoints(mark: CheckpointsMark): void {
    this.root.transactionSync(() => this.meta.putSync('checkpoints', mark), COMMIT_WITHOUT_FLUSH);
  }

  /** A write that changes nothing the log derives: whether the index's disk takes a commit now (a heal asks). */
  probe(): void {
    this.root.transactionSync(() => this.meta.putSync('probed', Date.now()));
  }

  /** Drops every entry, for a rebuild from the log. */
  clear(): void {
    this.lines.clearSync();
    this.heads.clearSync();
    this.facts.clearSync();
    this.meta.clearSync();
    // Layout 1's key a line for every wallet: nothing reads it any more.
    this.root.openDB({ name: 'wallets' }).dropSync();
    this.root.transactionSync(() => this.meta.putSync('layout', INDEX_LAYOUT));
    this.committedCount = 0;
    this.staged.reset(1);
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}

function refuseWithoutRoom(dir: string, path: string): void {
  const { bavail, bsize } = statfsSync(dir);
  const free = bavail * bsize;
  if (free >= ROOM_TO_CREATE_BYTES) return;
  const error = new Error(`ENOSPC: the audit index ${path} cannot be created with ${free} bytes free, it needs ${ROOM_TO_CREATE_BYTES}`);
  throw Object.assign(error, { code: 'ENOSPC' });
}

/** Moves a damaged index aside (kept for whoever looks into it), saying where; it is rebuilt from the logs. */
function moveAside(path: string, found: string, report: (line: string) => void): void {
  const aside = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  report(`audit: the index ${join(path, 'data.mdb')} is damaged (${found}); moved it aside to ${aside} (remove it once no longer needed) and rebuilding the index from audit.log and facts.log`);
}

/**
 * The index of DIR, opened; with `onlyIfThere`, null when DIR has none (a start reads an index before it decides
 * anything and creates none to do so). The index is derived data: one whose file header is damaged (checked before
 * LMDB maps it, index-file-check.ts) or that LMDB refuses is moved aside, said so, and rebuilt from the logs, never
 * a reason not to start.
 */
export function openLogIndex(dir: string, durable: boolean, report: (line: string) => void, onlyIfThere: boolean): LogIndex | null {
  const path = join(dir, INDEX_DIR_NAME);
  const damage = LogIndex.exists(dir) ? indexFileDamage(join(path, 'data.mdb')) : null;
  if (damage !== null) moveAside(path, damage, report);
  if (onlyIfThere && !LogIndex.exists(dir)) return null;
  try {
    return LogIndex.open(dir, durable);
  } catch (error) {
    if (!LogIndex.exists(dir)) throw error;
    moveAside(path, `LMDB could not open it: ${(error as Error).message}`, report);
    return onlyIfThere ? null : LogIndex.open(dir, durable);
  }
}
