// The Redis audit backend with AUDIT_PARTITIONS=K > 1: K chains, one checkpoint store over them (ARCHITECTURE.md "Partitioned audit chains").
import type { Config } from '../../config.js';
import type { BackendContext, OpenAuditBackend } from '../proof/audit-backend.js';
import { redisTarget } from '../../store/redis-connection.js';
import { PartitionedAuditLog } from './partitioned-audit-log.js';
import { RedisPartitionedCheckpoints } from './partitioned-checkpoints.js';

export async function openPartitionedBackend(config: Readonly<Config>, context: BackendContext): Promise<OpenAuditBackend> {
  const target = redisTarget(config)!;
  // Each chain remembers its own head beside the JWT secret (redis-chain-head-<p>.json) and watches its own epoch.
  const watch = { memoryFile: '', abandonEpoch: config.auditAbandonEpoch, log: context.log, now: context.now };
  const log = await PartitionedAuditLog.connect(target, config.auditPartitions, { now: context.now, watch, dataDir: config.dataDir, replicas: config.auditReplicas });
  return {
    log,
    openCheckpoints: () => Promise.reject(new Error('a partitioned audit log signs its chains together: open partitions.openCheckpoints')),
    storeState: log.storeState,
    status: { kind: 'redis', fsync: 'redis', watch: () => log.watchStatus() },
    threads: () => ({}),
    partitions: {
      chains: log.chains,
      openCheckpoints: (key) => RedisPartitionedCheckpoints.connect(target, log.chains, key),
    },
  };
}
