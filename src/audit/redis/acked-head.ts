// The chain's acknowledged head, `<prefix>acked`: the highest seq a WAIT confirmed, which the proof tree follows instead of the
// raw head, so no checkpoint signs a record a failover can drop (ARCHITECTURE.md "Durable acknowledgement").
import { ZERO_HASH, type AuditHead } from '../record/audit-log.js';
import type { RedisClient } from '../../store/redis-connection.js';

// Raised only, and only to a record the store holds with the hash that was confirmed: a late raise that reaches a
// promoted replica lacking the record (or holding another one at its seq) names nothing it does not have.
const RAISE_LUA = `
local line = redis.call('HGET', KEYS[2], ARGV[1])
if (not line) or string.sub(line, 1, 64) ~= ARGV[2] then return 0 end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

// The acknowledged seq and its record's hash, read together in the chain's slot.
const READ_LUA = `
local seq = redis.call('GET', KEYS[1])
if not seq then return {'0', ''} end
local line = redis.call('HGET', KEYS[2], seq)
return {seq, line and string.sub(line, 1, 64) or ''}`;

/**
 * How often a raise goes out at most: the trees look once a second, so one raise per confirmed batch
 * would only add a script call on the chain's primary, the thread that bounds appends per slot.
 */
const RAISE_EVERY_MS = 250;

interface AckedCommands {
  tgAuditAckedRaise(numKeys: number, acked: string, records: string, seq: string, hash: string): Promise<number>;
  tgAuditAckedRead(numKeys: number, acked: string, records: string): Promise<[string, string]>;
}

export class AckedHead {
  private readonly keys: [string, string];
  private pending: AuditHead | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** Defines its scripts on `client`, the chain's own connection, so a raise queues behind the appends it confirms. */
  constructor(private readonly client: RedisClient, prefix: string) {
    client.defineCommand('tgAuditAckedRaise', { lua: RAISE_LUA });
    client.defineCommand('tgAuditAckedRead', { lua: READ_LUA });
    this.keys = [`${prefix}acked`, `${prefix}records`];
  }

  /**
   * Called once WAIT confirmed every record up to `head`; not awaited by the verdict, and sent at most
   * every RAISE_EVERY_MS with the newest head confirmed meanwhile. Replication is
   * ordered, so a replica holding the raise holds every record up to it; a raise that fails only lets
   * the trees lag until the next confirmed append raises it further.
   */
  raise(head: AuditHead): void {
    if (this.pending === null || head.seq > this.pending.seq) this.pending = head;
    if (this.timer !== null) return;
    this.timer = setTimeout(() => this.send(), RAISE_EVERY_MS);
    this.timer.unref();
  }

  /** The newest confirmed head since the last raise, in one script call. */
  private send(): void {
    const head = this.pending;
    [this.pending, this.timer] = [null, null];
    if (head === null) return;
    (this.client as unknown as AckedCommands).tgAuditAckedRaise(2, ...this.keys, String(head.seq), head.hash).catch(() => 0);
  }

  async read(): Promise<AuditHead> {
    const [seq, hash] = await (this.client as unknown as AckedCommands).tgAuditAckedRead(2, ...this.keys);
    return { seq: Number(seq), hash: hash === '' ? ZERO_HASH : hash };
  }
}
