// Watches the shared audit chain for a store that forgot what this instance saw (an emptied or rewound Redis).
import type { StoreProblem, StoreState } from '../../store/store-state.js';
import type { RedisClient } from '../../store/redis-connection.js';
import { ZERO_HASH, type AuditHead } from '../record/audit-log.js';
import { headBehind, judge, newMarkerText, parseMarker, type EpochMarker, type StoreProbe } from './epoch-marker.js';
import { HeadMemory, type RememberedHead } from './head-memory.js';

export interface ChainWatchOptions {
  /** The file under DATA_DIR that remembers the epoch and the highest head seen. */
  memoryFile: string;
  /** AUDIT_ABANDON_EPOCH: a lost epoch the operator accepts losing; a new chain starts. */
  abandonEpoch?: string | null;
  log?: (line: string) => void;
  /** How often the store's marker and head are compared with the memory; default 1000 ms. */
  checkMs?: number;
  /** How often the remembered head is written to disk; default 1000 ms. */
  flushMs?: number;
  /** The service's clock, for the epoch marker's `created_at`. */
  now: () => number;
  /**
   * Whether a head read from the store is durable: true on one Redis without WAIT (the primary is the
   * whole acknowledgement), false when replicas must confirm (set by the log from AUDIT_REPLICA_ACKS).
   */
  readHeadsDurable?: boolean;
}

export interface WatchKeys {
  head: string;
  records: string;
  epoch: string;
}

const LOST_HELP = 'restore the Redis data, or restart this instance with AUDIT_ABANDON_EPOCH=';

/**
 * Appends check continuity themselves (the script compares the marker and the head);
 * this adds the memory, a check at every reconnect and every `checkMs`, and the state
 * the routes read without any I/O. A lost store stays lost until the store is
 * restored (the next check sees it) or an operator abandons the epoch at start.
 *
 * The memory holds only acknowledged heads (ARCHITECTURE.md "Durable acknowledgement"): with
 * replicas to confirm, a head read from the store may be a record whose WAIT failed, which a
 * failover may drop without anyone having been answered on it; such a head is compared with
 * the memory but never raises it. This instance's own confirmed append does, and vouches for
 * every record before it (replication is one ordered stream).
 */
export class ChainWatch implements StoreState {
  private trouble: StoreProblem | null = null;
  private marker: EpochMarker | null = null;
  private markerText = '';
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private closed = false;
  private readonly onClose = () => this.unverified();
  private readonly onReady = () => void this.check();

  private constructor(
    private readonly client: RedisClient,
    private readonly keys: WatchKeys,
    private readonly memory: HeadMemory,
    private readonly log: (line: string) => void,
    private readonly readHeadsDurable: boolean,
  ) {}

  static async open(client: RedisClient, keys: WatchKeys, options: ChainWatchOptions): Promise<ChainWatch> {
    const memory = await HeadMemory.load(options.memoryFile, options.now);
    const watch = new ChainWatch(client, keys, memory, options.log ?? (() => undefined), options.readHeadsDurable ?? true);
    await watch.establish(options.abandonEpoch ?? null, options.now);
    memory.startFlushing(options.flushMs ?? 1000);
    watch.timer = setInterval(() => void watch.check(), options.checkMs ?? 1000).unref();
    client.on('close', watch.onClose);
    client.on('ready', watch.onReady);
    return watch;
  }

  problem(): StoreProblem | null {
    return this.trouble;
  }

  tokensNotBeforeMs(): number | null {
    return this.trouble ? null : (this.marker?.tokens_not_before_ms ?? null);
  }

  /** The exact marker text the append script must find, or the append is refused. */
  get expectedMarker(): string {
    return this.markerText;
  }

  /**
   * Every head learned from the store: a refused append's reply or a head read (`acknowledged`
   * omitted: durable only when reads are), or this instance's own append (`acknowledged` says
   * whether its WAIT confirmed it). A head behind the memory is loss either way.
   */
  observe(head: AuditHead, acknowledged = this.readHeadsDurable): void {
    if (this.trouble?.code === 'store_lost_state') return;
    const behind = headBehind(this.memory.remembered, head);
    if (behind) this.lose(behind);
    else if (acknowledged) this.memory.see(head);
  }

  /** The append script found another marker, or none. */
  markerMismatch(found: string | null): void {
    const seen = this.memory.remembered;
    const verdict = judge(seen, { marker: found, head: seen, lineAtRemembered: seen.hash });
    this.lose(verdict.kind === 'lost' ? verdict.detail : 'the append script refused the epoch marker');
  }

  /** One comparison of the store with the memory; concurrent calls share it. */
  check(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.checking ??= this.runCheck().finally(() => (this.checking = null));
    return this.checking;
  }

  status(): Record<string, unknown> {
    const seen: RememberedHead = this.memory.remembered;
    const flushError = this.memory.flushError;
    const base = { epoch: this.marker?.id ?? null, remembered: { epoch: seen.epoch, seq: seen.seq, hash: seen.hash } };
    if (this.trouble) return { status: 'down', code: this.trouble.code, reason: this.trouble.detail, ...base };
    if (flushError) return { status: 'degraded', reason: `the remembered head cannot be written under DATA_DIR: ${flushError}`, ...base };
    return { status: 'ok', ...base };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.client.off('close', this.onClose);
    this.client.off('ready', this.onReady);
    await this.checking;
    await this.memory.close();
  }

  private async establish(abandon: string | null, now: () => number): Promise<void> {
    let abandoned = false;
    for (let round = 0; round < 4; round++) {
      const seen = this.memory.remembered;
      const probe = await this.probe(seen);
      const verdict = judge(seen, probe);
      if (verdict.kind === 'lost' && abandon !== null && !abandoned) {
        abandoned = this.abandon(abandon, probe, verdict.detail);
        if (abandoned) continue;
      }
      if (verdict.kind === 'create') {
        // NX: of several instances creating the chain at once, one marker wins and all adopt it.
        await this.client.set(this.keys.epoch, newMarkerText(now(), abandoned), 'NX');
        continue;
      }
      if (verdict.kind === 'adopt') await this.memory.adopt(verdict.marker.id, this.readHeadsDurable ? probe.head : { seq: 0, hash: ZERO_HASH });
      if (verdict.kind === 'lost') this.lose(verdict.detail);
      else this.accept(verdict.marker, probe);
      return;
    }
    throw new Error('audit: the epoch marker kept changing while starting; is another instance resetting the store?');
  }

  /** True when the remembered epoch is the one the operator abandoned and the store no longer carries it. */
  private abandon(abandon: string, probe: StoreProbe, detail: string): boolean {
    const remembered = this.memory.remembered.epoch;
    if (remembered !== abandon) {
      this.log(`audit: AUDIT_ABANDON_EPOCH=${abandon} does not name the epoch this instance remembers (${remembered}); nothing abandoned`);
      return false;
    }
    if (probe.marker !== null && parseMarker(probe.marker)?.id === abandon) {
      // Abandoning here would let this instance reuse seqs already acknowledged in that epoch.
      this.log(`audit: AUDIT_ABANDON_EPOCH=${abandon}: the store still carries that epoch, rewound; restore a complete copy, or delete its audit keys to start a new chain`);
      return false;
    }
    this.log(`audit: abandoning lost epoch ${abandon} (AUDIT_ABANDON_EPOCH; it had reached seq ${this.memory.remembered.seq}): ${detail}`);
    this.memory.forget();
    return true;
  }

  private accept(marker: EpochMarker, probe: StoreProbe): void {
    this.marker = marker;
    this.markerText = probe.marker ?? '';
    if (this.readHeadsDurable) this.memory.see(probe.head);
  }

  private async runCheck(): Promise<void> {
    // Judged against what was remembered when the probe was sent: an append acknowledged while it
    // waited (behind a WAIT on the same connection, say) raises the memory past what the probe read.
    const seen = this.memory.remembered;
    let probe: StoreProbe;
    try {
      probe = await this.probe(seen);
    } catch {
      this.unverified();
      return;
    }
    const verdict = judge(seen, probe);
    if (verdict.kind !== 'ok') {
      this.lose(verdict.kind === 'lost' ? verdict.detail : 'this instance remembers no epoch to compare with');
      return;
    }
    this.accept(verdict.marker, probe);
    if (this.trouble) this.log(`audit: the store is verified again (epoch ${verdict.marker.id}, head seq ${probe.head.seq}); resuming`);
    this.trouble = null;
  }

  private async probe(seen: RememberedHead): Promise<StoreProbe> {
    const seq = seen.seq;
    const tx = this.client.multi().hmget(this.keys.head, 'seq', 'hash').get(this.keys.epoch);
    if (seq > 0) tx.hget(this.keys.records, String(seq));
    const results = await tx.exec();
    if (!results) throw new Error('the store check was aborted');
    for (const [error] of results) if (error) throw error;
    const [headSeq, headHash] = results[0][1] as Array<string | null>;
    return {
      head: { seq: Number(headSeq ?? 0), hash: headHash ?? ZERO_HASH },
      marker: (results[1][1] as string | null) ?? null,
      lineAtRemembered: seq > 0 ? ((results[2][1] as string | null) ?? null) : null,
    };
  }

  private lose(detail: string): void {
    if (this.trouble?.code === 'store_lost_state' && this.trouble.detail === detail) return;
    this.trouble = { code: 'store_lost_state', detail };
    this.log(`audit: store_lost_state: ${detail}. Evaluations and sign-ins fail closed until an operator acts: ${LOST_HELP}${this.memory.remembered.epoch} (docs/audit-records.md, "When Redis loses its data")`);
  }

  /** A dropped connection: the store may have restarted empty, so nothing is trusted until the next check. */
  private unverified(): void {
    if (this.closed || this.trouble) return;
    this.trouble = { code: 'store_unavailable', detail: 'the connection to the store dropped and its state has not been verified since' };
    this.log('audit: the Redis connection dropped; evaluations and sign-ins wait until the store is verified again');
  }
}
