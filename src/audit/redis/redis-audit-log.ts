// The shared audit log: many service instances append to one hash chain kept in Redis.
//
// Keys under the prefix (default `tg:audit:`; on a Redis Cluster `{tg:audit}:`, a hash tag,
// so every key below shares one slot and the scripts and MULTIs run there):
//   head          hash {seq, hash}: the global head
//   records       hash seq -> exact line bytes `<64 hex hash> <canonical JSON>`
//   wallet-heads  hash wallet -> hash of the wallet's last record
//   wallet:<addr> list of the wallet's seqs, oldest first
//   claim         short-lived fairness claim (see redis-append-script.ts)
//   epoch         the chain's epoch marker, written once when the chain is created
//   facts         hash facts_hash -> the canonical JSON of a record's facts, written before the record
//   acked         the highest seq a WAIT confirmed, with AUDIT_REPLICA_ACKS > 0 (acked-head.ts)
// Durability is Redis's: run it with `appendonly yes` and `appendfsync always` when
// a verdict must never outlive its record. A Redis that forgets anyway is caught by
// the chain watch (redis-chain-watch.ts) and every append after it is refused.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AuditLogClosedError, ZERO_HASH, type AuditEntry, type AuditFactsSource, type FactsLine, type AuditHead, type AuditLineSource, type AuditLog,
  type AuditLogStats, type AuditRecord, type AuditWalletLineSource,
} from '../record/audit-log.js';
import { clampLimit } from '../record/list-limit.js';
import { GroupCommitter, type BatchOutcome } from '../record/group-commit.js';
import { factsHashOf, normalizeWallet, parseLine, type StoredRecord } from '../record/record.js';
import { withOutcomes } from '../record/outcome-reads.js';
import { outcomeHashOf } from '../record/outcome.js';
import { factsFields, withSharedDocuments } from './shared-facts-fields.js';
import { APPEND_LUA, FACTS_LUA, RELEASE_LUA } from './redis-append-script.js';
import { ChainWatch, type ChainWatchOptions } from './redis-chain-watch.js';
import { sealBatch, type SealedBatch } from '../record/seal-batch.js';
import { sha256Hex } from '../record/sha256.js';
import { ALWAYS_USABLE, StoreStateError, type StoreState } from '../../store/store-state.js';
import { asTarget, openRedis, type RedisClient, type RedisTarget } from '../../store/redis-connection.js';
import { appendWithAcks, AuditReplicaError, NO_REPLICA_ACKS, ReplicaHealth, type ReplicaAcks } from './replica-acks.js';
import { AckedHead } from './acked-head.js';

/** The prefix on a cluster: one hash tag for the whole chain (ARCHITECTURE.md "Redis Cluster"). */
export const CLUSTER_AUDIT_PREFIX = '{tg:audit}:';

export interface RedisAuditLogOptions {
  /** Key prefix; default `tg:audit:`, on a cluster CLUSTER_AUDIT_PREFIX. Keys of one chain must share a slot. */
  prefix?: string;
  /** Replicas that must confirm each append (WAIT) before it counts; default none. */
  replicas?: ReplicaAcks;
  /** Clock for record `ts`, in ms: the service's one clock (tests pin it). */
  now: () => number;
  /** Seal-and-append attempts per batch before its appends reject; default 20. */
  maxAttempts?: number;
  /** Most records per script call (the script blocks Redis while it runs); default 256. */
  maxBatch?: number;
  /** Per-command timeout so an unreachable Redis fails appends instead of hanging; default 5000 ms. */
  commandTimeoutMs?: number;
  /** Connection errors (ioredis reconnects by itself; appends meanwhile reject). Default: ignored. */
  onError?: (error: Error) => void;
  /** Lost-store detection (remembered head under DATA_DIR, epoch marker); the service always sets it. */
  watch?: ChainWatchOptions;
}

/** The heads kept moving under this instance for too many attempts; the caller fails closed. */
export class AuditConflictError extends Error {
  override name = 'AuditConflictError';
}

interface FactsCommand {
  tgAuditFacts(numKeys: number, ...args: string[]): Promise<number>;
}

interface AppendCommand {
  tgAuditRelease(numKeys: number, key: string, id: string): Promise<number>;
}

/** Wallet heads cached between batches; the script re-checks them, so staleness costs a retry, not a fork. */
const MAX_CACHED_WALLETS = 10_000;

export class RedisAuditLog implements AuditLog, AuditLineSource, AuditWalletLineSource, AuditFactsSource {
  readonly stats: AuditLogStats = { appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 };
  onAppended: ((record: Pick<AuditRecord, 'seq' | 'hash'>) => void) | null = null;
  private readonly committer: GroupCommitter<AuditEntry, AuditRecord>;
  private readonly keys: { head: string; records: string; walletHeads: string; claim: string; epoch: string };
  private watch: ChainWatch | null = null;
  private replication: ReplicaHealth | null = null;
  /** Only when appends WAIT: without replicas to confirm, the head is as acknowledged as it gets. */
  private readonly acked: AckedHead | null;
  /** Names this instance in fairness claims (see redis-append-script.ts). */
  private readonly id = randomUUID();
  private known: AuditHead = { seq: 0, hash: ZERO_HASH };
  private readonly walletCache = new Map<string, string>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly client: RedisClient,
    readonly prefix: string,
    private readonly maxAttempts: number,
    maxBatch: number,
    private readonly now: () => number,
    private readonly replicas: ReplicaAcks,
  ) {
    this.keys = { head: `${prefix}head`, records: `${prefix}records`, walletHeads: `${prefix}wallet-heads`, claim: `${prefix}claim`, epoch: `${prefix}epoch` };
    this.acked = replicas.acks > 0 ? new AckedHead(client, prefix) : null;
    this.committer = new GroupCommitter((entries) => this.commit(entries), maxBatch);
  }

  static async connect(target: string | RedisTarget, options: RedisAuditLogOptions): Promise<RedisAuditLog> {
    const where = asTarget(target);
    const client = openRedis(where, {
      lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: options.commandTimeoutMs ?? 5000,
    });
    client.on('error', options.onError ?? (() => undefined));
    client.defineCommand('tgAuditAppend', { lua: APPEND_LUA });
    client.defineCommand('tgAuditRelease', { lua: RELEASE_LUA });
    client.defineCommand('tgAuditFacts', { lua: FACTS_LUA });
    const prefix = options.prefix ?? (where.kind === 'cluster' ? CLUSTER_AUDIT_PREFIX : 'tg:audit:');
    const log = new RedisAuditLog(client, prefix, options.maxAttempts ?? 20, options.maxBatch ?? 256, options.now, options.replicas ?? NO_REPLICA_ACKS);
    try {
      await client.connect();
    } catch (error) {
      // A failed first connect would otherwise keep reconnecting in the background.
      client.disconnect();
      throw new Error(`audit log could not reach Redis: ${(error as Error).message}`, { cause: error });
    }
    try {
      if (options.watch) log.watch = await ChainWatch.open(client, log.keys, { ...options.watch, readHeadsDurable: log.replicas.acks === 0 });
      await log.readHeads([]);
      log.replication = await ReplicaHealth.start(client, log.replicas, log.keys.head);
    } catch (error) {
      log.replication?.stop();
      await log.watch?.close();
      client.disconnect();
      throw error;
    }
    return log;
  }

  /** Whether the shared store can be trusted; always usable without a watch. */
  get storeState(): StoreState {
    return this.watch ?? ALWAYS_USABLE;
  }

  /**
   * The AuditLog contract: null when an append can be taken now. Cheap: ioredis's connection state,
   * the epoch watch's verdict and what replication last showed, all already known; no round trip.
   */
  readiness(): string | null {
    if (this.closing) return 'the audit log is closed';
    if (this.client.status !== 'ready') return `the Redis holding the audit chain is not connected (${this.client.status})`;
    const problem = this.watch?.problem();
    if (problem) return `the audit chain in Redis cannot be trusted: ${problem.detail}`;
    return this.replication?.problem() ?? null;
  }

  /** The watch's part of the status document; null without a watch. */
  watchStatus(): Record<string, unknown> | null {
    return this.watch?.status() ?? null;
  }

  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.closing) return Promise.reject(new AuditLogClosedError());
    this.stats.appends++;
    return this.committer.submit(entry);
  }

  async head(): Promise<AuditHead> {
    const [seq, hash] = await this.client.hmget(this.keys.head, 'seq', 'hash');
    return { seq: Number(seq ?? 0), hash: hash ?? ZERO_HASH };
  }

  /** What the proof tree follows: a head a failover cannot take back (ARCHITECTURE.md "Durable acknowledgement"). */
  acknowledgedHead(): Promise<AuditHead> {
    return this.acked ? this.acked.read() : this.head();
  }

  async listGlobal(limit: number): Promise<AuditRecord[]> {
    const { seq } = await this.head();
    const count = clampLimit(limit, seq);
    const seqs = Array.from({ length: count }, (_, i) => String(seq - i));
    return withOutcomes((await this.fetch(seqs)).map((line, i) => this.parseAt(seqs[i], line)), this);
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    const count = clampLimit(limit, Number.MAX_SAFE_INTEGER);
    if (count === 0) return [];
    const seqs = (await this.client.lrange(this.walletKey(normalizeWallet(wallet)), -count, -1)).reverse();
    return withOutcomes((await this.fetch(seqs)).map((line, i) => this.parseAt(seqs[i], line)), this);
  }

  async readLines(fromSeq: number, count: number): Promise<Buffer[]> {
    const { seq } = await this.head();
    const first = Math.max(1, Math.floor(fromSeq));
    const n = clampLimit(count, Math.max(0, seq - first + 1));
    return this.fetch(Array.from({ length: n }, (_, i) => String(first + i)));
  }

  async readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    const n = clampLimit(count, Number.MAX_SAFE_INTEGER);
    const seqs = n === 0 ? [] : await this.client.lrange(this.walletKey(normalizeWallet(wallet)), -n, -1);
    // A seq the wallet's list names but the records hash lacks comes back null for the verifier to report.
    return seqs.length === 0 ? [] : this.client.hmgetBuffer(this.keys.records, ...seqs);
  }

  /** The hash that keeps the facts, keyed by facts_hash. */
  get factsLocation(): string {
    return `${this.prefix}facts`;
  }

  /** The facts of records `fromSeq` to `fromSeq + count - 1` that have them, in seq order, each after the shared documents it names. */
  async readFacts(fromSeq: number, count: number): Promise<FactsLine[]> {
    const lines = await this.readLines(fromSeq, count);
    const named = lines.map((line, i) => ({ seq: fromSeq + i, hash: factsHashOf(line) })).filter((n): n is { seq: number; hash: string } => n.hash !== null);
    if (named.length === 0) return [];
    const texts = await this.client.hmget(`${this.prefix}facts`, ...named.map((n) => n.hash));
    const own = named.flatMap((n, i) => (texts[i] === null ? [] : [{ seq: n.seq, hash: n.hash, text: texts[i]! }]));
    const outcomes = new Map(lines.flatMap((line, i) => {
      const outcome = outcomeHashOf(line);
      return outcome === null ? [] : [[fromSeq + i, outcome] as const];
    }));
    return withSharedDocuments(own, (hashes) => this.client.hmget(`${this.prefix}facts`, ...hashes), outcomes);
  }

  /** Drains queued appends, then writes the remembered head and closes the connection. */
  close(): Promise<void> {
    this.closing ??= this.committer.drain().then(async () => {
      this.replication?.stop();
      await this.watch?.close();
      await this.client.quit();
    });
    return this.closing;
  }

  private walletKey(wallet: string): string {
    return `${this.prefix}wallet:${wallet}`;
  }

  private async fetch(seqs: string[]): Promise<Buffer[]> {
    if (seqs.length === 0) return [];
    const lines = await this.client.hmgetBuffer(this.keys.records, ...seqs);
    return lines.map((line, i) => {
      if (line === null) throw new Error(`audit record ${seqs[i]} is missing from Redis`);
      return line;
    });
  }

  private parseAt(seq: string, line: Buffer): StoredRecord {
    try {
      return parseLine(line);
    } catch (error) {
      throw new Error(`audit record ${seq} is corrupt: ${(error as Error).message}`);
    }
  }

  /** Reads the global head and the given wallets' heads in one MULTI, so they are consistent. */
  private async readHeads(wallets: string[]): Promise<void> {
    const tx = this.client.multi().hmget(this.keys.head, 'seq', 'hash');
    if (wallets.length > 0) tx.hmget(this.keys.walletHeads, ...wallets);
    const results = await tx.exec();
    if (!results) throw new Error('audit head read was aborted');
    for (const [error] of results) if (error) throw error;
    const [seq, hash] = results[0][1] as Array<string | null>;
    const walletHashes = (results[1]?.[1] ?? []) as Array<string | null>;
    this.learn({ seq: Number(seq ?? 0), hash: hash ?? ZERO_HASH }, wallets, walletHashes);
  }

  /** Adopts a head seen in Redis; a head we did not write voids every cached wallet head. */
  private learn(head: AuditHead, wallets: string[], hashes: Array<string | null>): void {
    this.watch?.observe(head);
    if (head.seq !== this.known.seq || head.hash !== this.known.hash || this.walletCache.size > MAX_CACHED_WALLETS) {
      this.walletCache.clear();
    }
    this.known = head;
    wallets.forEach((wallet, i) => this.walletCache.set(wallet, hashes[i] ?? ZERO_HASH));
  }

  private async commit(entries: AuditEntry[]): Promise<BatchOutcome<AuditRecord>> {
    // Facts are kept by their hash, so they go first and a retried seal needs no second write; a shared document
    // (ARCHITECTURE.md "Recorded facts") is one field whichever record names it, sent once a group.
    const facts = factsFields(entries);
    if (facts.length > 0) {
      this.assertUsable();
      // Written only under the epoch this instance knows: a store that lost its state takes nothing.
      await (this.client as unknown as FactsCommand).tgAuditFacts(2, this.keys.epoch, `${this.prefix}facts`, this.watch?.expectedMarker ?? '', ...facts);
    }
    for (let attempt = 1; ; attempt++) {
      this.assertUsable();
      const missing = [...new Set(entries.map((e) => normalizeWallet(String(e.wallet))))]
        .filter((wallet) => !this.walletCache.has(wallet));
      if (missing.length > 0) await this.readHeads(missing);
      const batch = sealBatch(entries, this.known, (wallet) => this.walletCache.get(wallet), sha256Hex, this.now());
      const result = batch.sealed.length === 0 ? 'appended' : await this.tryAppend(batch);
      if (result === 'appended') return batch.outcome;
      this.stats.conflicts++;
      if (attempt >= this.maxAttempts) {
        await (this.client as unknown as AppendCommand).tgAuditRelease(1, this.keys.claim, this.id).catch(() => 0);
        throw new AuditConflictError(`audit chain head kept moving: gave up after ${attempt} attempts`);
      }
      // The claimant re-seals at once; others back off with jitter so they do not collide in lockstep.
      if (result === 'back-off') await sleep(Math.random() * Math.min(50, 2 ** (attempt - 1)));
    }
  }

  /** A lost store takes no record: sealing on its head would reuse acknowledged seqs. */
  private assertUsable(): void {
    const problem = this.watch?.problem();
    if (problem?.code === 'store_lost_state') throw new StoreStateError(problem);
  }

  /** One script call; on refusal the fresh heads in the reply are learned for the next attempt. */
  private async tryAppend(batch: SealedBatch): Promise<'appended' | 'retry-now' | 'back-off'> {
    const wallets = [...batch.assumedWalletHeads.keys()];
    const walletIndex = new Map(wallets.map((wallet, i) => [wallet, String(i + 1)]));
    const marker = this.watch?.expectedMarker ?? '';
    const args: Array<string | Buffer> = [String(batch.base.seq), batch.base.hash, this.id, String(wallets.length), marker];
    for (const wallet of wallets) args.push(wallet, batch.assumedWalletHeads.get(wallet)!);
    for (const { record, line } of batch.sealed) {
      args.push(String(record.seq), walletIndex.get(record.wallet)!, line.subarray(0, line.length - 1));
    }
    const { head, records, walletHeads, claim, epoch } = this.keys;
    const keys = [head, records, walletHeads, claim, epoch, ...wallets.map((w) => this.walletKey(w))];
    const { reply, shortfall } = await appendWithAcks(this.client, this.replicas, keys, args);
    if (reply[0] === -1) {
      this.watch?.markerMismatch(reply[1] === '' ? null : String(reply[1]));
      return 'retry-now';
    }
    if (reply[0] !== 1) {
      this.learn({ seq: Number(reply[2]), hash: String(reply[3]) }, wallets, reply.slice(4) as string[]);
      return reply[1] === this.id ? 'retry-now' : 'back-off';
    }
    this.known = batch.head;
    // Remembered as acknowledged, and given to the proof tree, only once WAIT confirmed it: a failover
    // may drop it otherwise (ARCHITECTURE.md "Durable acknowledgement").
    this.watch?.observe(batch.head, shortfall === null);
    this.replication?.noteWait(shortfall);
    for (const [wallet, hash] of batch.walletHeads) this.walletCache.set(wallet, hash);
    if (shortfall === null) {
      this.acked?.raise(batch.head);
      for (const { record } of batch.sealed) this.onAppended?.(record);
    }
    this.stats.writes++;
    this.stats.bytes += batch.sealed.reduce((sum, { line }) => sum + line.length - 1, 0);
    // In the chain now, so learned above; but not durable, so nobody is answered on it.
    if (shortfall) throw new AuditReplicaError(`audit append not acknowledged by replicas: ${shortfall}`);
    return 'appended';
  }
}
