// Durable acknowledgement: an append counts once Redis WAIT says enough replicas hold it (ARCHITECTURE.md "Durable acknowledgement").
import { DependencyError, failureOf } from '../../catalogue/failures.js';
import type { RedisClient } from '../../store/redis-connection.js';

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
