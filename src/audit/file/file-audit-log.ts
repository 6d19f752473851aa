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
// Where each line starts, each wallet's records and each page of facts.log live in an LMDB index beside the log
// (DATA_DIR/audit/index, ARCHITECTURE.md "File audit index"), written in the group commit after
// the lines: memory stays flat however long the log grows, and a restart reads only the lines
// the index lacks.
//
// Open cuts only a torn tail: records the index or a signed checkpoint vouches for are damage, and
// open refuses (ARCHITECTURE.md "Damage is not a torn tail"). While running, appends stop when the
// file is not the one written or a write failed, and resume once a failed write heals
// (ARCHITECTURE.md "A log that heals").
import { constants } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AuditLogClosedError, type AuditEntry, type AuditFactsSource, type AuditHead, type FactsLine, type AuditLineSource, type AuditLog,
  type AuditLogStats, type AuditRecord, type AuditWalletLineSource,
} from '../record/audit-log.js';
import type { OpenReport } from './file-scan.js';
import { judgeFileTail, reestablishEnd } from './log-end.js';
import { LogHealth } from './log-health.js';
import { lossMarkers } from './tail-evidence.js';
import { resolveOptions, type FileAuditLogOptions } from './file-log-options.js';
import { bringIndexUp, type IndexReport } from './index-catch-up.js';
import { openLogIndex, type CheckpointsMark, type FactsMark, type Head, type LinkedLine, type LogIdentity, type LogIndex } from './log-index.js';
import { GroupCommitter, type BatchOutcome } from '../record/group-commit.js';
import { LogLines } from './log-lines.js';
import { cutAt, writeAllAt } from './file-lines.js';
import { withOutcomes } from '../record/outcome-reads.js';
import { sealBatch, type SealedBatch } from '../record/seal-batch.js';
import { sha256Hex } from '../record/sha256.js';
import { syncDirectory } from '../record/sync-directory.js';
import { FACTS_FILE_NAME, FactsFile, SHARED_FACTS_PAGE } from './facts-file.js';
import { SharedFactsWrites } from '../record/shared-facts-writes.js';
import { RecentWalletHeads } from './recent-wallet-heads.js';

export type { OpenReport } from './file-scan.js';
export type { FileAuditLogOptions } from './file-log-options.js';
export type { IndexReport } from './index-catch-up.js';

/** The checkpoints file's checked part, as the index keeps it. */
export interface CheckpointsMarks {
  get(): CheckpointsMark | null;
  set(mark: CheckpointsMark): void;
}
export const AUDIT_FILE_NAME = 'audit.log';

export class FileAuditLog implements AuditLog, AuditLineSource, AuditWalletLineSource, AuditFactsSource {
  readonly stats: AuditLogStats = { appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 };
  onAppended: ((record: Pick<AuditRecord, 'seq' | 'hash'>) => void) | null = null;
  private readonly committer: GroupCommitter<AuditEntry, AuditRecord>;
  private closing: Promise<void> | undefined;
  /** Failed writes, a file that is not ours, a full disk: appends fail closed while it says so. */
  private readonly health: LogHealth;
  private writing = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private unsynced = false;
  /** Shared facts documents are written once per page of seqs, the page a facts read starts at (log-lines.ts). */
  private readonly sharedFacts = new SharedFactsWrites((seq) => Math.floor(seq / SHARED_FACTS_PAGE));
  private readonly lines: LogLines;
  /** Heads of the wallets sealed lately, so a fleet's records link without an index read. */
  private readonly walletHeads = new RecentWalletHeads();

  private constructor(
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly options: Required<FileAuditLogOptions>,
    private readonly index: LogIndex,
    /** Lines in the log, good or suspect; line n is position n in the index. */
    private records: number,
    private current: AuditHead,
    private end: number,
    /** What open found and cut; log it. */
    readonly openReport: OpenReport,
    readonly indexReport: IndexReport,
    private readonly facts: FactsFile,
    ino: bigint,
  ) {
    this.committer = new GroupCommitter((entries) => this.commit(entries), options.maxBatch);
    this.lines = new LogLines(fh, index);
    this.health = new LogHealth(path, fh, ino, {
      end: () => this.end, writing: () => this.writing, heal: () => this.heal(), report: options.report,
    });
  }

  /** Where the checkpoints file's checked part is kept: the index beside this log (ARCHITECTURE.md "Checkpoints and proofs"). */
  get checkpointsMarks(): CheckpointsMarks {
    return { get: () => this.index.checkedCheckpoints(), set: (mark) => this.index.markCheckpoints(mark) };
  }

  /** The AuditLog contract: null when an append can be taken now, else why not. */
  readiness(): string | null {
    return this.closing ? 'the audit log is closed' : this.health.readiness();
  }

  /**
   * Opens (creating if needed) DIR/audit.log, cutting a torn tail; see openReport. One writer:
   * the service holds the DATA_DIR lock before it opens the log (src/assembly/data-dir-lock.ts).
   */
  static async open(dir: string, options: FileAuditLogOptions = { fsync: 'always' }): Promise<FileAuditLog> {
    const settings = resolveOptions(options);
    await mkdir(dir, { recursive: true });
    const path = join(dir, AUDIT_FILE_NAME);
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    let log: FileAuditLog;
    try {
      log = await FileAuditLog.start(dir, fh, settings);
    } catch (error) {
      await fh.close();
      throw error;
    }
    await log.markLoss().catch(async (error: unknown) => {
      await log.close().catch(() => undefined);
      throw error;
    });
    return log;
  }

  /** Cuts a torn tail, then brings the index up to date with what is left. */
  private static async start(dir: string, fh: FileHandle, settings: Required<FileAuditLogOptions>): Promise<FileAuditLog> {
    const began = performance.now();
    const path = join(dir, AUDIT_FILE_NAME);
    const found = await fh.stat({ bigint: true });
    const size = Number(found.size);
    const durable = settings.fsync !== 'off';
    // An index already there vouches for records before anything is cut; a missing one is made only after.
    let index = openLogIndex(dir, durable, settings.report, true);
    try {
      const { end, reasons, accepted } = await judgeFileTail(dir, path, fh, size, index?.count ?? 0, settings.acceptLoss);
      await cutAt(fh, end, size);
      index ??= openLogIndex(dir, durable, settings.report, false) as LogIndex;
      const ready = await bringIndexUp(fh, index, end, { size, mtimeNs: found.mtimeNs, ino: found.ino }, settings);
      if (durable) await syncDirectory(dir);
      const report: OpenReport = {
        records: ready.records, truncatedBytes: size - end, reason: reasons.length > 0 ? reasons.join('; ') : null,
        suspectLines: ready.suspectLines, scanMs: Math.round((performance.now() - began) * 10) / 10,
        ...(accepted ? { acceptedLoss: { first_seq: accepted.firstSeq, last_seq: accepted.lastSeq } } : {}),
      };
      const { rebuilt, indexedLines } = ready;
      const facts = await FactsFile.open(dir, index, settings);
      return new FileAuditLog(fh, path, settings, index, ready.records, ready.head, end, report, { rebuilt, indexedLines }, facts, found.ino);
    } catch (error) {
      await index?.close();
      throw error;
    }
  }

  /** An accepted loss: one marker per lost seq, written before any verdict can take one of them. */
  private async markLoss(): Promise<void> {
    const accepted = this.openReport.acceptedLoss;
    if (accepted) await Promise.all(lossMarkers(accepted.first_seq, accepted.last_seq, this.options.now()).map((entry) => this.append(entry)));
  }

  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.closing) return Promise.reject(new AuditLogClosedError());
    const failed = this.health.error();
    if (failed) return Promise.reject(failed);
    this.stats.appends++;
    return this.committer.submit(entry);
  }

  async head(): Promise<AuditHead> {
    return { ...this.current };
  }

  async listGlobal(limit: number): Promise<AuditRecord[]> {
    return withOutcomes(await this.lines.listGlobal(limit, this.records), this);
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    return withOutcomes(await this.lines.listWallet(wallet, limit), this);
  }

  readLines(fromSeq: number, count: number): Promise<Buffer[]> {
    return this.lines.readLines(fromSeq, count, this.records);
  }

  readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    return this.lines.readWalletLines(wallet, count);
  }

  readonly factsLocation = FACTS_FILE_NAME;

  readFacts(fromSeq: number, count: number): Promise<FactsLine[]> {
    return this.lines.readFacts(this.facts, fromSeq, count, this.records);
  }

  /** Drains queued appends, syncs (unless fsync is 'off') and closes the file. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    try {
      this.health.stop();
      await this.committer.drain();
      clearTimeout(this.syncTimer);
      await this.syncing;
      // Under 'off' too: the staged index lines are committed, so the next open has nothing to catch up.
      if (this.unsynced && !this.health.error()) await this.sync();
      await this.fh.close();
      await this.facts.close();
      // Without the mark (a log that failed) the next open checks the index's last line against the log.
      if (!this.health.error()) await this.markClosed().catch(() => undefined);
    } finally {
      await this.index.close().catch(() => undefined);
    }
  }

  private async commit(entries: AuditEntry[]): Promise<BatchOutcome<AuditRecord>> {
    const failed = this.health.error();
    if (failed) throw failed;
    // The seq of each wallet's head the group seals on: its first line links to it in the index, with no second read.
    const sealedOn = new Map<string, number>();
    const batch = sealBatch(entries, this.current, (wallet) => {
      const head = this.walletHead(wallet);
      sealedOn.set(wallet, head?.[0] ?? 0);
      return head?.[1];
    }, sha256Hex, this.options.now());
    if (batch.sealed.length === 0) return batch.outcome;
    this.writing = true;
    try {
      await this.write(batch, sealedOn);
    } finally {
      this.writing = false;
    }
    this.acknowledge(batch);
    if (this.options.fsync !== 'always') this.scheduleSync();
    return batch.outcome;
  }

  /** A wallet's newest record (sealBatch gives it stored, lower case): kept from a recent append, else read out of LMDB's map. */
  private walletHead(wallet: string): Head | undefined {
    return this.walletHeads.get(wallet) ?? this.index.head(wallet) ?? undefined;
  }

  /** The group's facts, then its records, each at the true end of its file. */
  private async write(batch: SealedBatch, sealedOn: ReadonlyMap<string, number>): Promise<void> {
    try {
      this.health.checkBeforeWrite();
    } catch (error) {
      throw this.health.error() ?? this.health.fail('io', `I/O error: ${(error as Error).message}`);
    }
    // Facts first: a record on disk always has its facts beside it (an orphaned facts line is harmless).
    const facts = this.sharedFacts.lines(batch.sealed);
    let factsMarks: FactsMark[] = [];
    if (facts.length > 0) {
      await this.guarded(async () => void (factsMarks = await this.facts.append(facts)));
      if (this.options.fsync === 'always') await this.guarded(() => this.facts.sync());
    }
    const data = batch.sealed.length === 1 ? batch.sealed[0].line : Buffer.concat(batch.sealed.map((s) => s.line));
    await this.guarded(() => this.writeAll(data));
    if (this.options.fsync === 'always') await this.guarded(() => this.sync());
    // After the lines (and their fdatasync): the index never counts a record the log could lose to a crash.
    // Under 'always' committed here; otherwise staged (reads see it at once) and committed by the log's next sync, after
    // its fdatasync, in one transaction for every group since (ARCHITECTURE.md "File audit index").
    if (this.options.fsync !== 'always') return this.index.stage(this.indexed(batch, sealedOn), factsMarks);
    await this.guarded(async () => this.index.add(this.indexed(batch, sealedOn), factsMarks, false), this.indexFailed);
    await this.guarded(() => this.index.flush(), this.indexFailed);
  }

  private get indexFailed(): string {
    return `the audit index ${this.index.path} could not be written`;
  }

  /** The group's lines as the index places them, from the acknowledged end on, each linked to its wallet's line before. */
  private indexed(batch: SealedBatch, sealedOn: ReadonlyMap<string, number>): LinkedLine[] {
    let offset = this.end;
    const newest = new Map(sealedOn);
    return batch.sealed.map(({ record, line }) => {
      const entry = { offset, length: line.length, wallet: record.wallet, hash: record.hash, prev: newest.get(record.wallet) ?? 0 };
      newest.set(record.wallet, record.seq);
      offset += line.length;
      return entry;
    });
  }

  /** One positional write per group; loops only on a short write. */
  private async writeAll(data: Buffer): Promise<void> {
    this.stats.writes += await writeAllAt(this.fh, data, this.end);
    this.stats.bytes += data.length;
    this.unsynced = true;
  }

  /** On a failed write or fsync, cut back what this group may have left and fail closed until the log heals. */
  private async guarded(step: () => Promise<void>, what = 'I/O error'): Promise<void> {
    try {
      await step();
    } catch (error) {
      // The group's facts lines may be cut: the shared documents it wrote are written again at their next use.
      this.sharedFacts.forget();
      const failure = this.health.fail('io', `${what}: ${(error as Error).message}`);
      // Never on a file that is not ours: cutting it to our end would write zeros into someone else's bytes.
      if (!this.health.moved) await this.fh.truncate(this.end).catch(() => undefined);
      throw failure;
    }
  }

  /**
   * ARCHITECTURE.md "A log that heals": the file ends exactly with the last acknowledged record,
   * facts.log at its last whole group, the index holds exactly the acknowledged records (a failed
   * index commit wrote nothing) and takes a commit again; only then do appends resume. Throws while any of it fails; the
   * health watch tries again a second later.
   */
  private async heal(): Promise<void> {
    await reestablishEnd(this.fh, this.end, this.current.hash);
    await this.facts.cutTo(this.facts.size);
    if (this.index.count !== this.records) {
      throw new Error(`the audit index (${this.index.path}) holds ${this.index.count} records, not the ${this.records} acknowledged; restart the service to rebuild it`);
    }
    if (this.options.fsync !== 'off') await Promise.all([this.fh.datasync(), this.facts.sync()]);
    this.index.commitStaged();
    this.index.probe();
  }

  /** The log as a clean close leaves it, for the next open to find unchanged. */
  private async markClosed(): Promise<void> {
    const found = await stat(this.path, { bigint: true });
    const identity: LogIdentity = { size: Number(found.size), mtimeNs: found.mtimeNs, ino: found.ino };
    this.index.markClosed(identity);
  }
  /** The group is written (and indexed): its records are acknowledged. */
  private acknowledge(batch: SealedBatch): void {
    for (const { record, line } of batch.sealed) {
      this.records++;
      this.end += line.length;
      this.walletHeads.acknowledged(record.wallet, record.seq, record.hash);
      this.onAppended?.(record);
    }
    this.current = batch.head;
  }

  /** The log's lines to disk (unless fsync is 'off'), then the index's staged lines up to them, committed and flushed. */
  private async sync(): Promise<void> {
    this.unsynced = false;
    const synced = this.index.count;
    if (this.options.fsync !== 'off') {
      await Promise.all([this.fh.datasync(), this.options.fsync === 'batch' ? this.facts.sync() : undefined]);
      this.stats.fsyncs++;
    }
    // After the lines it indexes: only lines the fdatasync covered, in one transaction, flushed here, never per group.
    try {
      this.index.commitStaged(synced);
    } catch (error) {
      throw new IndexWriteError(`${this.indexFailed}: ${(error as Error).message}`);
    }
    if (this.options.fsync === 'batch') await this.index.flush();
  }

  private scheduleSync(): void {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.syncing = this.sync().catch((error: Error) => {
        this.health.fail('io', error instanceof IndexWriteError ? error.message : `fsync error: ${error.message}`);
      });
    }, this.options.batchMs);
  }
}

/** The index's commit of the lines a sync covered failed: they stay staged, and appends stop until it heals. */
class IndexWriteError extends Error {}
