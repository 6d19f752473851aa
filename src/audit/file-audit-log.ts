// The single-instance audit log: a hash-chained append-only file with group commit.
//
// File format (DATA_DIR/audit.log), one record per line:
//
//     <64 lower-case hex SHA-256> <space> <RFC 8785 canonical JSON> \n
//
// The hash is SHA-256 of exactly the canonical JSON bytes (DESIGN.md "Audit record").
// Canonical JSON escapes control characters and UTF-8 never produces byte 0x0a inside
// a multi-byte sequence, so lines split cleanly on newline bytes. To verify a line,
// hash the bytes after the first 65 characters up to (not including) the newline and
// compare with the first 64; never re-serialize. Line n (1-based) holds seq n.
import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AuditLogClosedError, type AuditEntry, type AuditHead, type AuditLineSource, type AuditLog,
  type AuditLogStats, type AuditRecord, type AuditWalletLineSource,
} from './audit-log.js';
import { lockDirectory, type DirLock } from './dir-lock.js';
import { scanLog, type LineOffsets, type OpenReport, type WalletChain } from './file-scan.js';
import { clampLimit } from './list-limit.js';
import { GroupCommitter, type BatchOutcome } from './group-commit.js';
import { normalizeWallet, parseLine } from './record.js';
import { sealBatch, type SealedBatch } from './seal-batch.js';
import { sha256Hex } from './sha256.js';

export type { OpenReport } from './file-scan.js';
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
}

/** A newly created file survives a power cut only once its directory entry is synced too. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class FileAuditLog implements AuditLog, AuditLineSource, AuditWalletLineSource {
  readonly stats: AuditLogStats = { appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 };
  private readonly committer: GroupCommitter<AuditEntry, AuditRecord>;
  private closing: Promise<void> | undefined;
  /** Set after a failed write or fsync: the file state is uncertain, so every later append fails closed. */
  private failure: Error | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private unsynced = false;

  private constructor(
    private readonly lock: DirLock,
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly options: Required<FileAuditLogOptions>,
    private readonly offsets: LineOffsets,
    private readonly wallets: Map<string, WalletChain>,
    private current: AuditHead,
    private end: number,
    /** What open found and cut; log it. */
    readonly openReport: OpenReport,
  ) {
    this.committer = new GroupCommitter((entries) => this.commit(entries), options.maxBatch);
  }

  /**
   * Opens (creating if needed) DIR/audit.log, cutting a torn tail; see openReport.
   * Refuses (DirectoryLocked) while another live process has the directory open.
   */
  static async open(dir: string, options: FileAuditLogOptions = { fsync: 'always' }): Promise<FileAuditLog> {
    const settings = {
      fsync: options.fsync, batchMs: options.batchMs ?? 50, maxBatch: options.maxBatch ?? 4096, now: options.now ?? Date.now,
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
      const scan = await scanLog(fh, sha256Hex);
      if (scan.report.truncatedBytes > 0) {
        await fh.truncate(scan.goodEnd);
        await fh.datasync();
      }
      if (settings.fsync !== 'off') await syncDirectory(dir);
      return new FileAuditLog(lock, fh, path, settings, scan.offsets, scan.wallets, scan.head, scan.goodEnd, scan.report);
    } catch (error) {
      await fh.close();
      await lock.release();
      throw error;
    }
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
    const count = clampLimit(limit, this.offsets.count);
    if (count === 0) return [];
    const lines = await this.readLineRange(this.offsets.count - count, this.offsets.count);
    return lines.map((line, i) => this.parseAt(this.offsets.count - count + i, line)).reverse();
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    const chain = this.wallets.get(normalizeWallet(wallet));
    const count = clampLimit(limit, chain?.lines.length ?? 0);
    if (!chain || count === 0) return [];
    const wanted = chain.lines.slice(chain.lines.length - count).reverse();
    const lines = await Promise.all(wanted.map((lineNo) => this.readLineRange(lineNo, lineNo + 1)));
    return lines.map(([line], i) => this.parseAt(wanted[i], line));
  }

  async readLines(fromSeq: number, count: number): Promise<Buffer[]> {
    const first = Math.max(0, Math.floor(fromSeq) - 1);
    const last = first + clampLimit(count, Math.max(0, this.offsets.count - first));
    return last > first ? this.readLineRange(first, last) : [];
  }

  async readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    const chain = this.wallets.get(normalizeWallet(wallet));
    const n = clampLimit(count, chain?.lines.length ?? 0);
    if (!chain || n === 0) return [];
    const wanted = chain.lines.slice(chain.lines.length - n);
    // A line the file no longer holds (cut under a running service) is null for the verifier to report.
    return Promise.all(wanted.map((lineNo) => this.readLineRange(lineNo, lineNo + 1).then(([line]) => line, () => null)));
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
    } finally {
      await this.lock.release();
    }
  }

  private async commit(entries: AuditEntry[]): Promise<BatchOutcome<AuditRecord>> {
    if (this.failure) throw this.failure;
    const batch = sealBatch(entries, this.current, (wallet) => this.wallets.get(wallet)?.hash, sha256Hex, this.options.now());
    if (batch.sealed.length === 0) return batch.outcome;
    const data = batch.sealed.length === 1 ? batch.sealed[0].line : Buffer.concat(batch.sealed.map((s) => s.line));
    await this.guarded(() => this.writeAll(data));
    if (this.options.fsync === 'always') await this.guarded(() => this.sync());
    this.index(batch);
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

  private index(batch: SealedBatch): void {
    for (const { record, line } of batch.sealed) {
      const lineNo = this.offsets.count;
      this.offsets.push(this.end);
      this.end += line.length;
      const chain = this.wallets.get(record.wallet);
      if (chain) {
        chain.hash = record.hash;
        chain.lines.push(lineNo);
      } else {
        this.wallets.set(record.wallet, { hash: record.hash, lines: [lineNo] });
      }
    }
    this.current = batch.head;
  }

  private async sync(): Promise<void> {
    this.unsynced = false;
    await this.fh.datasync();
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

  private async readLineRange(first: number, last: number): Promise<Buffer[]> {
    const from = this.offsets.start(first);
    const to = last < this.offsets.count ? this.offsets.start(last) : this.end;
    const data = Buffer.allocUnsafe(to - from);
    for (let got = 0; got < data.length;) {
      const { bytesRead } = await this.fh.read(data, got, data.length - got, from + got);
      if (bytesRead === 0) throw new Error(`audit.log ended early reading lines ${first + 1}..${last}`);
      got += bytesRead;
    }
    const lines: Buffer[] = [];
    for (let i = first; i < last; i++) {
      const end = i + 1 < last ? this.offsets.start(i + 1) : to;
      lines.push(data.subarray(this.offsets.start(i) - from, end - from - 1));
    }
    return lines;
  }

  private parseAt(lineNo: number, line: Buffer): AuditRecord {
    try {
      return parseLine(line);
    } catch (error) {
      throw new Error(`audit.log line ${lineNo + 1} is corrupt: ${(error as Error).message}`);
    }
  }
}
