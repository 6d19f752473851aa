// The single-instance audit log: a hash-chained append-only file with group commit.
//
// File format (DATA_DIR/audit.log), one record per line:
//
//     <64 lower-case hex SHA-256> <space> <RFC 8785 canonical JSON> \n
//
// The hash is SHA-256 of exactly the canonical JSON bytes (ARCHITECTURE.md "Audit record").
// Canonical JSON escapes control characters and UTF-8 never produces byte 0x0a inside
// a multi-byte sequence, so lines split cleanly on newline bytes. To verify a line,
// hash the bytes after the first 65 characters up to (not including) the newline and
// compare with the first 64; never re-serialize. Line n (1-based) holds seq n.
//
// Where each line starts and each wallet's newest record live in index files beside
// the log (audit.idx, wallets.idx, wallets.ovf), kept by a thread of their own: memory
// stays flat however long the log grows, and a clean restart does not read the log.
import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AuditLogClosedError, type AuditEntry, type AuditFactsSource, type AuditHead, type FactsLine, type AuditLineSource, type AuditLog,
  type AuditLogStats, type AuditRecord, type AuditWalletLineSource,
} from '../audit/audit-log.js';
import { lockDirectory, type DirLock } from './dir-lock.js';
import { walletKey, type Head, type IndexBatch } from './audit-index.js';
import { findGoodEnd, type OpenReport } from './file-scan.js';
import { BACKLOG_LIMIT, IndexClient } from './index-client.js';
import { clampLimit } from '../audit/list-limit.js';
import { GroupCommitter, type BatchOutcome } from '../audit/group-commit.js';
import { LogLines } from './log-lines.js';
import { RECENT_HEADS, RecentHeads, askUnlessNew } from './recent-heads.js';
import type { IndexReport } from './index-recovery.js';
import { logIdentity } from './record-index.js';
import { normalizeWallet, parseLine } from '../audit/record.js';
import { sealBatch, type SealedBatch } from '../audit/seal-batch.js';
import { sha256Hex } from '../audit/sha256.js';
import { syncDirectory } from '../audit/sync-directory.js';
import { FILTER_BYTES, WalletFilter } from './wallet-filter.js';
import { FactsFile } from './facts-file.js';
import { factsHashOf } from '../audit/record.js';

export type { OpenReport } from './file-scan.js';
export type { IndexReport } from './index-recovery.js';
export const AUDIT_FILE_NAME = 'audit.log';

export interface FileAuditLogOptions {
  /**
   * 'always': fdatasync each group commit before its appends resolve (a verdict is
   * never sent for a record a power cut could lose). 'batch': resolve after the
   * write, fdatasync at most every `batchMs`. 'off': leave flushing to the kernel.
   */
  fsync: 'always' | 'batch' | 'off';
  /** Interval for 'batch'; default 50 ms. */
  batchMs?: number;
  /** Most records in one write; default 4096. */
  maxBatch?: number;
  /** Clock for record `ts`, in ms; default Date.now (tests pin it). */
  now?: () => number;
  /** Wallet heads kept in memory to spare the index thread a question; default 4096. */
  recentWallets?: number;
  /** Bytes of the filter of wallets held (wallet-filter.ts), a power of two; default 4 MiB. */
  filterBytes?: number;
}


export class FileAuditLog implements AuditLog, AuditLineSource, AuditWalletLineSource, AuditFactsSource {
  readonly stats: AuditLogStats = { appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 };
  onAppended: ((record: Pick<AuditRecord, 'seq' | 'hash'>) => void) | null = null;
  private readonly committer: GroupCommitter<AuditEntry, AuditRecord>;
  private closing: Promise<void> | undefined;
  /** Set after a failed write or fsync: the file state is uncertain, so every later append fails closed. */
  private failure: Error | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private unsynced = false;
  private readonly recent: RecentHeads;
  private readonly lines: LogLines;

  private constructor(
    private readonly lock: DirLock,
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly options: Required<FileAuditLogOptions>,
    private readonly index: IndexClient,
    /** Every wallet the log holds, and perhaps others: a wallet it lacks is new, with no question to the index thread. */
    private readonly filter: WalletFilter,
    /** Lines in the log, good or suspect; line n is position n in the index. */
    private records: number,
    private current: AuditHead,
    private end: number,
    /** What open found and cut; log it. */
    readonly openReport: OpenReport,
    readonly indexReport: IndexReport,
    private readonly facts: FactsFile,
  ) {
    this.committer = new GroupCommitter((entries) => this.commit(entries), options.maxBatch);
    this.recent = new RecentHeads(options.recentWallets);
    this.lines = new LogLines(fh, index);
    index.onFailure = (error) => {
      this.failure ??= new Error(`audit log unusable: ${error.message}`);
    };
  }

  /** Seconds the index thread has spent writing index pages and answering questions (for /metrics). */
  indexBusySeconds(): number {
    return this.index.busySeconds();
  }

  /**
   * Opens (creating if needed) DIR/audit.log, cutting a torn tail; see openReport.
   * Refuses (DirectoryLocked) while another live process has the directory open.
   */
  static async open(dir: string, options: FileAuditLogOptions = { fsync: 'always' }): Promise<FileAuditLog> {
    const settings = {
      fsync: options.fsync, batchMs: options.batchMs ?? 50, maxBatch: options.maxBatch ?? 4096, now: options.now ?? Date.now,
      recentWallets: options.recentWallets ?? RECENT_HEADS, filterBytes: options.filterBytes ?? FILTER_BYTES,
    };
    if (!['always', 'batch', 'off'].includes(settings.fsync)) throw new Error(`unknown fsync mode ${settings.fsync}`);
    await mkdir(dir, { recursive: true });
    const lock = await lockDirectory(dir);
    const path = join(dir, AUDIT_FILE_NAME);
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o644).catch(async (error: unknown) => {
      await lock.release();
      throw error;
    });
    try {
      return await FileAuditLog.start(dir, lock, fh, settings);
    } catch (error) {
      await fh.close();
      await lock.release();
      throw error;
    }
  }

  /** Cuts a torn tail, then starts the index thread, which brings the index up to date with what is left. */
  private static async start(dir: string, lock: DirLock, fh: FileHandle, settings: Required<FileAuditLogOptions>): Promise<FileAuditLog> {
    const began = performance.now();
    const path = join(dir, AUDIT_FILE_NAME);
    const found = await fh.stat({ bigint: true });
    const size = Number(found.size);
    const { end, reasons } = await findGoodEnd(fh, size, sha256Hex);
    if (end < size) {
      await fh.truncate(end);
      await fh.datasync();
    }
    const identity = { size, mtimeNs: found.mtimeNs, ino: found.ino };
    const durable = settings.fsync !== 'off';
    const { client, ready, filter } = await IndexClient.start({ dir, logPath: path, goodEnd: end, identity, durable, filterBytes: settings.filterBytes });
    if (settings.fsync !== 'off') await syncDirectory(dir);
    const report: OpenReport = {
      records: ready.records, truncatedBytes: size - end, reason: reasons.length > 0 ? reasons.join('; ') : null,
      suspectLines: ready.suspectLines, scanMs: Math.round((performance.now() - began) * 10) / 10,
    };
    const { rebuilt, indexedLines } = ready;
    const facts = await FactsFile.open(dir);
    return new FileAuditLog(lock, fh, path, settings, client, filter, ready.records, ready.head, end, report, { rebuilt, indexedLines }, facts);
  }

  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.closing) return Promise.reject(new AuditLogClosedError());
    if (this.failure) return Promise.reject(this.failure);
    this.stats.appends++;
    return this.committer.submit(entry);
  }

  async head(): Promise<AuditHead> {
    return { ...this.current };
  }

  async listGlobal(limit: number): Promise<AuditRecord[]> {
    const count = clampLimit(limit, this.records);
    if (count === 0) return [];
    const first = this.records - count + 1;
    const lines = await this.lines.range(first, count);
    return lines.map((line, i) => this.parseAt(first + i, line)).reverse();
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    const spans = await this.lines.walletSpans(wallet, limit);
    const lines = await Promise.all(spans.map((span) => this.lines.line(span)));
    return lines.map((line, i) => this.parseAt(spans[i].pos, line));
  }

  async readLines(fromSeq: number, count: number): Promise<Buffer[]> {
    const first = Math.max(0, Math.floor(fromSeq) - 1);
    const last = first + clampLimit(count, Math.max(0, this.records - first));
    return last > first ? this.lines.range(first + 1, last - first) : [];
  }

  async readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    const spans = (await this.lines.walletSpans(wallet, count)).reverse();
    // A line the file no longer holds (cut under a running service) is null for the verifier to report.
    return Promise.all(spans.map((span) => this.lines.line(span).catch(() => null)));
  }

  /**
   * The facts of records `fromSeq` to `fromSeq + count - 1` that have them, in seq order: each the
   * line whose hash the record names (a seq sealed twice after a crash has two lines).
   */
  async readFacts(fromSeq: number, count: number): Promise<FactsLine[]> {
    const lines = await this.readLines(fromSeq, count);
    const wanted = new Map<number, string>();
    lines.forEach((line, i) => {
      const hash = factsHashOf(line);
      if (hash) wanted.set(fromSeq + i, hash);
    });
    if (wanted.size === 0) return [];
    const found = new Map<number, FactsLine>();
    for await (const line of this.facts.range(fromSeq, fromSeq + lines.length - 1)) {
      if (wanted.get(line.seq) === line.hash) found.set(line.seq, line);
    }
    return [...wanted.keys()].flatMap((seq) => found.get(seq) ?? []);
  }

  /** Drains queued appends, syncs (unless fsync is 'off') and closes the file. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    try {
      await this.committer.drain();
      clearTimeout(this.syncTimer);
      await this.syncing;
      if (this.options.fsync !== 'off' && this.unsynced && !this.failure) await this.sync();
      await this.fh.close();
      await this.facts.close();
      // Without the clean mark (an index that failed) the next open recovers from the log.
      await this.index.close(await logIdentity(this.path)).catch(() => undefined);
    } finally {
      await this.index.terminate();
      await this.lock.release();
    }
  }

  private async commit(entries: AuditEntry[]): Promise<BatchOutcome<AuditRecord>> {
    if (this.failure) throw this.failure;
    if (this.index.backlog > BACKLOG_LIMIT) await this.index.drained();
    const wallets = entries.map((entry) => normalizeWallet(String(entry.wallet)));
    const keys = new Map<string, Buffer>();
    const heads = await this.recent.resolve(wallets, (asked) => askUnlessNew(this.filter, asked, keys, (maybe) => this.index.heads(maybe)));
    const batch = sealBatch(entries, this.current, (wallet) => heads.get(wallet)?.[1], sha256Hex, this.options.now());
    if (batch.sealed.length === 0) return batch.outcome;
    // Facts first: a record on disk always has its facts beside it (an orphaned facts line is harmless).
    const facts: FactsLine[] = [];
    for (const { record, facts: stored } of batch.sealed) if (stored) facts.push({ seq: record.seq, hash: stored.hash, text: stored.text });
    if (facts.length > 0) {
      await this.guarded(() => this.facts.append(facts));
      if (this.options.fsync === 'always') await this.guarded(() => this.facts.sync());
    }
    const data = batch.sealed.length === 1 ? batch.sealed[0].line : Buffer.concat(batch.sealed.map((s) => s.line));
    await this.guarded(() => this.writeAll(data));
    if (this.options.fsync === 'always') await this.guarded(() => this.sync());
    this.indexBatch(batch, heads, keys);
    if (this.options.fsync === 'batch') this.scheduleSync();
    return batch.outcome;
  }

  /** One positional write per group; loops only on a short write. */
  private async writeAll(data: Buffer): Promise<void> {
    for (let done = 0; done < data.length;) {
      const { bytesWritten } = await this.fh.write(data, done, data.length - done, this.end + done);
      this.stats.writes++;
      done += bytesWritten;
    }
    this.stats.bytes += data.length;
    this.unsynced = true;
  }

  /** On a failed write or fsync, cut back what this group may have left and fail closed from now on. */
  private async guarded(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.failure = new Error(`audit log unusable after I/O error: ${(error as Error).message}`);
      await this.fh.truncate(this.end).catch(() => undefined);
      throw this.failure;
    }
  }

  /**
   * Hands the written lines to the index thread, each with its wallet's previous
   * record (the head it was sealed on); later questions are answered with them in.
   * A wallet's first record puts it in the filter before any later commit looks.
   */
  private indexBatch(batch: SealedBatch, heads: Map<string, Head>, keys: Map<string, Buffer>): void {
    const indexed: IndexBatch = { firstOffset: this.end, lengths: [], wallets: [], hashes: [], prevs: [] };
    for (const { record, line } of batch.sealed) {
      const pos = ++this.records;
      indexed.lengths.push(line.length);
      indexed.wallets.push(record.wallet);
      indexed.hashes.push(record.hash);
      const prev = heads.get(record.wallet);
      if (prev === undefined) this.filter.add(keys.get(record.wallet) ?? walletKey(record.wallet));
      indexed.prevs.push(prev?.[0] ?? 0);
      const head: Head = [pos, record.hash];
      heads.set(record.wallet, head);
      this.recent.set(record.wallet, head);
      this.end += line.length;
      this.onAppended?.(record);
    }
    this.current = batch.head;
    this.index.append(indexed);
  }

  private async sync(): Promise<void> {
    this.unsynced = false;
    await Promise.all([this.fh.datasync(), this.options.fsync === 'batch' ? this.facts.sync() : undefined]);
    this.stats.fsyncs++;
  }

  private scheduleSync(): void {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.syncing = this.sync().catch((error: Error) => {
        this.failure = new Error(`audit log unusable after fsync error: ${error.message}`);
      });
    }, this.options.batchMs);
  }

  private parseAt(pos: number, line: Buffer): AuditRecord {
    try {
      return parseLine(line);
    } catch (error) {
      throw new Error(`audit.log line ${pos} is corrupt: ${(error as Error).message}`);
    }
  }
}
