// Durable acknowledgement: an append counts once Redis WAIT says enough replicas hold it (ARCHITECTURE.md "Durable acknowledgement").
import { DependencyError, failureOf } from '../../catalogue/failures.js';
import { isCluster, type RedisClient } from '../../store/redis-connection.js';
import { keySlot } from './partitioned-slots.js';

/** How many replicas must confirm each append, and how long WAIT may take; 0 acks skips WAIT. */
export interface ReplicaAcks {
  acks: number;
  timeoutMs: number;
}

export const NO_REPLICA_ACKS: ReplicaAcks = Object.freeze({ acks: 0, timeoutMs: 1_000 });

/** The append script's reply (redis-append-script.ts). */
export type AppendReply = [number, ...string[]];

interface AppendCommand {
  tgAuditAppend(numKeys: number, ...args: Array<string | Buffer>): unknown;
}

/**
 * The record is on the primary but fewer replicas than asked confirmed it: a failover now could lose
 * it, so no verdict is answered on it (503 audit_unavailable), as for any append that failed.
 */
export class AuditReplicaError extends DependencyError {
  constructor(detail: string) {
    super(failureOf('audit_unavailable'), detail);
    this.name = 'AuditReplicaError';
  }
}

/**
 * Runs the append script and, when acks are asked for, WAIT right behind it in one pipeline on one
 * connection: WAIT counts the replicas holding every write that connection made, the script's
 * included, and on a cluster the pipeline goes to the primary owning the script's slot (WAIT has no
 * key of its own, so sent alone it would reach any node). `shortfall` says why the record is not
 * durable yet; null when it is (or when none were asked for).
 */
export async function appendWithAcks(
  client: RedisClient,
  replicas: ReplicaAcks,
  keys: string[],
  args: Array<string | Buffer>,
): Promise<{ reply: AppendReply; shortfall: string | null }> {
  if (replicas.acks === 0) {
    const reply = (await (client as unknown as AppendCommand).tgAuditAppend(keys.length, ...keys, ...args)) as AppendReply;
    return { reply, shortfall: null };
  }
  const pipeline = client.pipeline();
  (pipeline as unknown as AppendCommand).tgAuditAppend(keys.length, ...keys, ...args);
  pipeline.wait(replicas.acks, replicas.timeoutMs);
  const results = await pipeline.exec();
  if (!results) throw new Error('the audit append pipeline was aborted');
  const [[appendError, reply], [waitError, acked]] = results;
  if (appendError) throw appendError;
  if (waitError) return { reply: reply as AppendReply, shortfall: `WAIT failed: ${waitError.message}` };
  const count = Number(acked);
  const shortfall = count >= replicas.acks ? null
    : `${count} of the ${replicas.acks} replicas asked for (AUDIT_REPLICA_ACKS) acknowledged the record within ${replicas.timeoutMs} ms`;
  return { reply: reply as AppendReply, shortfall };
}

/** How often the chain primary's replication is read: one INFO a second per instance, never one per request. */
export const REPLICA_CHECK_MS = 1_000;

/**
 * What `readiness()` knows of replication without a round trip (ARCHITECTURE.md "Durable acknowledgement"):
 * the outcome of the last WAIT, and the chain primary's online replicas as its INFO last said. A paid
 * evaluation asks readiness before it settles, so a primary without enough replicas refuses before
 * anyone is charged. While a WAIT fell short, the periodic check sends a WAIT of its own on the same
 * connection, so appends resume once the replicas hold what was written (and evaluations, which are
 * refused meanwhile, need not append to find out).
 */
export class ReplicaHealth {
  private lastWait: string | null = null;
  private replication: string | null = null;
  private checking: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly client: RedisClient, private readonly replicas: ReplicaAcks, private readonly slotKey: string) {}

  /** Null when no acknowledgement is asked for; else checked once before it resolves, then every `everyMs`. */
  static async start(client: RedisClient, replicas: ReplicaAcks, slotKey: string, everyMs = REPLICA_CHECK_MS): Promise<ReplicaHealth | null> {
    if (replicas.acks === 0) return null;
    const health = new ReplicaHealth(client, replicas, slotKey);
    await health.check();
    health.timer = setInterval(() => void health.check(), everyMs).unref();
    return health;
  }

  /** Why an append would not be acknowledged now; null when it should be. */
  problem(): string | null {
    return this.replication ?? this.lastWait;
  }

  /** The outcome of an append's WAIT: a shortfall holds until a WAIT confirms again. */
  noteWait(shortfall: string | null): void {
    this.lastWait = shortfall === null ? null : `the last audit record was not confirmed by replicas (${shortfall}); waiting for them to confirm`;
  }

  /** One look at the primary owning `slotKey`; concurrent calls share it. */
  check(): Promise<void> {
    this.checking ??= this.look().finally(() => (this.checking = null));
    return this.checking;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * ` (slot N)` on a cluster, which `CLUSTER SLOTS` maps to the node for the operator; nothing on one Redis. Not the
   * node's address: the reason is shown on the public status page, which names no address.
   */
  private primaryNamed(): string {
    return isCluster(this.client) ? ` (slot ${keySlot(this.slotKey)})` : '';
  }

  private async look(): Promise<void> {
    const { acks, timeoutMs } = this.replicas;
    // The keyed EXISTS routes the pipeline, so INFO and WAIT reach the primary owning the chain's slot.
    const pipeline = this.client.pipeline().exists(this.slotKey).info('replication');
    const waiting = this.lastWait !== null;
    if (waiting) pipeline.wait(acks, timeoutMs);
    try {
      const results = await pipeline.exec();
      if (!results) throw new Error('the replication check was aborted');
      for (const [error] of results) if (error) throw error;
      const online = onlineReplicas(String(results[1][1]));
      this.replication = online >= acks ? null
        : `the primary holding the audit chain${this.primaryNamed()} has ${online} of the ${acks} replicas AUDIT_REPLICA_ACKS asks for online; `
          + 'records resume by themselves once a replica is back (restart the lost node: it rejoins as a replica)';
      if (waiting && Number(results[2][1]) >= acks) this.lastWait = null;
    } catch (error) {
      this.replication = `the replication of the audit chain's primary could not be read: ${(error as Error).message}`;
    }
  }
}

/** Replicas INFO replication lists as `state=online`. */
export function onlineReplicas(info: string): number {
  return [...info.matchAll(/^slave\d+:.*state=online/gm)].length;
}
