// K audit chains in one Redis (or over a cluster's primaries), one per partition of the wallets, read and written as one log
// (ARCHITECTURE.md "Partitioned audit chains").
//
// Chain p is a RedisAuditLog of its own under the prefix `{tg:audit:<p>.<n>}:`: the braces are a hash tag, so
// every key its append script touches is in one slot, and n is chosen so the chains spread over a cluster's primaries. A
// wallet's records all go to chain partitionOf(wallet, K), where its `wallet_prev_hash` links stay.
import { join } from 'node:path';
import type {
  AuditEntry, AuditFactsSource, AuditHead, AuditLineSource, AuditLog, AuditLogStats, AuditRecord, AuditWalletLineSource, FactsLine,
} from '../record/audit-log.js';
import { partitionOf } from '../record/partition.js';
import { sha256Hex } from '../record/sha256.js';
import type { StoreState } from '../../store/store-state.js';
import type { RedisTarget } from '../../store/redis-connection.js';
import { RedisAuditLog, type RedisAuditLogOptions } from './redis-audit-log.js';
import { chainTag } from './partitioned-slots.js';
import { partitionedStatus, type PartitionedStatus } from './partitioned-status.js';

/** The key prefix of chain `p` of `partitions`: its hash tag keeps the chain's keys in one slot, apart from the other chains'. */
export function chainPrefix(p: number, partitions: number): string {
  return `{${chainTag(p, partitions)}}:`;
}

/** Where chain `p`'s remembered head lives under DATA_DIR (the single chain keeps `redis-chain-head.json`). */
export function chainMemoryFile(dataDir: string, p: number): string {
  return join(dataDir, `redis-chain-head-${p}.json`);
}

/** Seqs are per chain: a read by seq must name its chain. */
export class PartitionedReadError extends Error {
  override name = 'PartitionedReadError';
}

export class PartitionedAuditLog implements AuditLog, AuditWalletLineSource, AuditLineSource, AuditFactsSource {
  /** Each chain's onAppended is set by the partitioned proof tree; this one is never called. */
  onAppended: ((record: Pick<AuditRecord, 'seq' | 'hash'>) => void) | null = null;
  readonly storeState: StoreState;

  private constructor(readonly chains: readonly RedisAuditLog[]) {
    this.storeState = {
      problem: () => chains.map((chain) => chain.storeState.problem()).find((problem) => problem !== null) ?? null,
      tokensNotBeforeMs: () => Math.max(0, ...chains.map((chain) => chain.storeState.tokensNotBeforeMs() ?? 0)) || null,
    };
  }

  /** Connects every chain; when one cannot open, those already open are closed and the start fails. */
  static async connect(target: string | RedisTarget, partitions: number, options: RedisAuditLogOptions & { dataDir: string }): Promise<PartitionedAuditLog> {
    const chains: RedisAuditLog[] = [];
    try {
      for (let p = 0; p < partitions; p++) {
        const watch = options.watch ? { ...options.watch, memoryFile: chainMemoryFile(options.dataDir, p) } : undefined;
        chains.push(await RedisAuditLog.connect(target, { ...options, prefix: chainPrefix(p, partitions), watch }));
      }
    } catch (error) {
      await Promise.allSettled(chains.map((chain) => chain.close()));
      throw error;
    }
    return new PartitionedAuditLog(chains);
  }

  get partitions(): number {
    return this.chains.length;
  }

  chainOf(wallet: string): number {
    return partitionOf(wallet, this.chains.length);
  }

  /** Summed over the chains, read when the metrics are scraped. */
  get stats(): AuditLogStats {
    const sum: AuditLogStats = { appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 };
    for (const { stats } of this.chains) for (const key of Object.keys(sum) as Array<keyof AuditLogStats>) sum[key] += stats[key];
    return sum;
  }

  async append(entry: AuditEntry): Promise<AuditRecord> {
    const chain = this.chainOf(String(entry.wallet));
    return { ...(await this.chains[chain].append(entry)), chain };
  }

  heads(): Promise<AuditHead[]> {
    return Promise.all(this.chains.map((chain) => chain.head()));
  }

  /** Records in all chains, and a digest of every chain's head (`<p>:<seq>:<hash>` joined by newlines), for the status page. */
  async head(): Promise<AuditHead> {
    const heads = await this.heads();
    const seq = heads.reduce((sum, head) => sum + head.seq, 0);
    return { seq, hash: sha256Hex(heads.map((head, p) => `${p}:${head.seq}:${head.hash}`).join('\n')) };
  }

  /** The newest `limit` records of all chains by time (then chain, then seq), each naming its chain. */
  async listGlobal(limit: number): Promise<AuditRecord[]> {
    const lists = await Promise.all(this.chains.map((chain, p) => chain.listGlobal(limit).then((records) => records.map((r) => ({ ...r, chain: p })))));
    return lists.flat().sort((a, b) => b.ts - a.ts || a.chain - b.chain || b.seq - a.seq).slice(0, Math.max(0, limit));
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    const chain = this.chainOf(wallet);
    return (await this.chains[chain].listWallet(wallet, limit)).map((record) => ({ ...record, chain }));
  }

  readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    return this.chains[this.chainOf(wallet)].readWalletLines(wallet, count);
  }

  /** A seq names a record only within a chain: readers of a partitioned log ask `chains[p]`, and one that does not fails closed here. */
  readLines(): Promise<Buffer[]> {
    return Promise.reject(new PartitionedReadError(`the audit log keeps ${this.chains.length} chains: a range of seqs must name its chain`));
  }

  /** Each chain keeps its own (`{tg:audit:<p>.<n>}:facts`); a read names its chain. */
  readonly factsLocation = 'the facts hash of each chain';

  readFacts(): Promise<FactsLine[]> {
    return Promise.reject(new PartitionedReadError(`the audit log keeps ${this.chains.length} chains: a range of seqs must name its chain`));
  }

  /**
   * Readiness per chain: a wallet's record can be taken when its chain can, whatever the others' state, so
   * a node lost under one chain refuses only that chain's wallets. Without a wallet the log is unready only
   * when no chain can take a record; which chains are down is in `watchStatus()`.
   */
  readiness(wallet?: string): string | null {
    if (wallet !== undefined) return this.chainReadiness(this.chainOf(wallet));
    const reasons = this.chains.map((_, p) => this.chainReadiness(p));
    return reasons.every((reason) => reason !== null) ? reasons.join('; ') : null;
  }

  /** The status page's view of every chain: its watch, whether it takes records, and the log's overall state. */
  watchStatus(): PartitionedStatus {
    return partitionedStatus(this.chains.map((chain) => ({ watch: chain.watchStatus(), unready: chain.readiness() })));
  }

  private chainReadiness(p: number): string | null {
    const reason = this.chains[p].readiness();
    return reason === null ? null : `audit chain ${p}: ${reason}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.chains.map((chain) => chain.close()));
  }
}
