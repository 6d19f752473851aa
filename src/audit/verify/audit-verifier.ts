// Verifies the newest records of the live audit log (global or one wallet) on the verification pool.
import type { AuditFactsSource, AuditLineSource, AuditLog, AuditWalletLineSource, AuditLogStats } from '../record/audit-log.js';
import { GENESIS, type ChainAnchor, type ChainEnd, type VerifyReport } from './chain-walk.js';
import type { LinkField } from './chunk-scan.js';
import { lineChunks, linesPerChunk } from './chunk-sources.js';
import { FactsCheck } from './facts-check.js';
import { clampLimit } from '../record/list-limit.js';
import { partitionOf } from '../record/partition.js';
import { canonicalBytes, factsHashOf, normalizeWallet, parseLine } from '../record/record.js';
import { sha256Hex } from '../record/sha256.js';
import { verifyChunks } from './verify-chunks.js';
import { VerifyPool } from './verify-pool.js';

/** Both stores are all three: the log, its global lines and its wallet lines. */
export type VerifiableAuditLog = AuditLog & AuditLineSource & AuditWalletLineSource & AuditFactsSource & { readonly stats: AuditLogStats };

export class AuditVerifier {
  private readonly pool: VerifyPool;
  /** Verifications run since start (global and wallet), and how many found the chain broken. */
  readonly runs = { total: 0, broken: 0 };

  /** The chains of the log: `[log]` for the single chain, chain p at p on a partitioned log (ARCHITECTURE.md "Partitioned audit chains"). */
  readonly chains: readonly VerifiableAuditLog[];

  constructor(readonly log: VerifiableAuditLog, threads: number, chains?: readonly VerifiableAuditLog[]) {
    this.pool = new VerifyPool(threads);
    this.chains = chains ?? [log];
  }

  /** The newest `limit` records of the log's one chain; a partitioned log is verified by verifyChains. */
  async verifyGlobal(limit: number): Promise<VerifyReport> {
    if (this.chains.length > 1) throw new Error(`the audit log keeps ${this.chains.length} chains: verify them with verifyChains`);
    return this.counted(await this.verifyChain(limit, this.log));
  }

  /** The newest `limit` records of every chain (one on an unpartitioned log), side by side on the pool: one verification. */
  async verifyChains(limit: number): Promise<VerifyReport[]> {
    const reports = await Promise.all(this.chains.map((chain) => this.verifyChain(limit, chain)));
    this.count(reports.every((report) => report.healthy));
    return reports;
  }

  /**
   * The newest `limit` records of one chain, each re-hashed and linked to the one before; the first
   * links to its predecessor when there is one, and the last must be the head the store reports (a
   * cut tail shows nowhere else).
   */
  private async verifyChain(limit: number, chain: VerifiableAuditLog): Promise<VerifyReport> {
    const head = await chain.head();
    const count = clampLimit(limit, head.seq);
    const from = head.seq - count + 1;
    const lines = await readRange(chain, Math.max(1, from - 1), from > 1 ? count + 1 : count);
    const anchor = from > 1 ? anchorOf(lines.shift() ?? null, from - 1) : GENESIS;
    const report = await this.run(lines, 'prev_hash', anchor, head);
    return (await checkFacts(chain, from, lines)).merge(report);
  }

  /** The wallet's newest `limit` records on its own chain (`wallet_prev_hash`). */
  async verifyWallet(wallet: string, limit: number): Promise<VerifyReport> {
    const count = clampLimit(limit, Number.MAX_SAFE_INTEGER);
    if (count === 0) return this.counted(await this.run([], 'wallet_prev_hash', GENESIS));
    const lines = await this.log.readWalletLines(normalizeWallet(wallet), count + 1);
    const anchor = lines.length > count ? anchorOf(lines.shift() ?? null, 0) : GENESIS;
    return this.counted(await this.run(lines, 'wallet_prev_hash', anchor));
  }

  /** The chain that holds a wallet's records: always 0 on an unpartitioned log. */
  chainOf(wallet: string): number {
    return partitionOf(wallet, this.chains.length);
  }

  private counted(report: VerifyReport): VerifyReport {
    this.count(report.healthy);
    return report;
  }

  /** One verification run in the metrics, broken unless every chain it read was healthy. */
  private count(healthy: boolean): void {
    this.runs.total += 1;
    if (!healthy) this.runs.broken += 1;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run(lines: Array<Buffer | null>, field: LinkField, anchor: ChainAnchor, head?: ChainEnd): Promise<VerifyReport> {
    // A record the store cannot produce is skipped: the record after it then fails its link (and seq).
    const present = lines.filter((line): line is Buffer => line !== null);
    const chunks = lineChunks(present, linesPerChunk(present.length, this.pool.threads));
    return verifyChunks(this.pool, chunks, { field, anchor, head });
  }
}

/** The facts of records `from`.. (`lines`, as read for the chain walk) against the facts_hash each names. */
async function checkFacts(chain: VerifiableAuditLog, from: number, lines: Array<Buffer | null>): Promise<FactsCheck> {
  const check = new FactsCheck(chain.factsLocation);
  if (lines.length === 0) return check;
  const present = lines.flatMap((line, i) => (line === null ? [] : [from + i]));
  // A record the store could not produce (a tail cut under the service) is the chain walk's to report: the facts of
  // the records it could are read one by one then.
  const read = present.length === lines.length
    ? chain.readFacts(from, lines.length)
    : Promise.all(present.map((seq) => chain.readFacts(seq, 1))).then((found) => found.flat());
  // A seq may list its shared documents (by hash, ARCHITECTURE.md "Recorded facts") beside its own facts.
  const found = await read;
  const kept = new Map(found.map((facts) => [`${facts.seq} ${facts.hash}`, facts]));
  const shared = new Map(found.map((facts) => [facts.hash, facts.text]));
  lines.forEach((line, i) => {
    if (line !== null) check.add(from + i, line, kept.get(`${from + i} ${factsHashOf(line)}`) ?? null, shared);
  });
  return check;
}

/**
 * Lines `from` .. `from + count - 1`. When the batch read fails (a record missing
 * from Redis, a file cut under the service) each line is read alone and the
 * unreadable ones come back null.
 */
export async function readRange(source: AuditLineSource, from: number, count: number): Promise<Array<Buffer | null>> {
  if (count <= 0) return [];
  try {
    return await source.readLines(from, count);
  } catch {
    const one = (seq: number) => source.readLines(seq, 1).then(([line]) => line ?? null, () => null);
    return Promise.all(Array.from({ length: count }, (_, i) => one(from + i)));
  }
}

/** The record before a range: the first record may name its stored or its real hash. */
function anchorOf(line: Buffer | null, fallbackSeq: number): ChainAnchor {
  if (line === null || line.length <= 65) return { seq: fallbackSeq, hashes: [] };
  let seq = fallbackSeq;
  try {
    seq = parseLine(line).seq;
  } catch {
    // A damaged predecessor is not judged here; its position still gives the seq.
  }
  return { seq, hashes: [line.toString('latin1', 0, 64), sha256Hex(canonicalBytes(line))] };
}
