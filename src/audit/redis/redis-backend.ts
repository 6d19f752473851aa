// The Redis audit backend: the chain shared by every instance on one Redis, its checkpoints beside it, as one AuditBackend.
import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { AuditBackend, BackendContext, OpenAuditBackend } from '../proof/audit-backend.js';
import { RedisAuditLog } from './redis-audit-log.js';
import { RedisCheckpointStore } from './redis-checkpoints.js';
import { redisTarget } from '../../store/redis-connection.js';
import { openPartitionedBackend } from './partitioned-backend.js';
import { redisChainEnds, redisLayout } from './chain-layout.js';

export const redisBackend: AuditBackend = {
  name: 'redis',
  selected: (config) => config.auditStore === 'redis' && redisTarget(config) !== null,
  open: openRedisBackend,
  // Tools read a shared chain through a service's exports (its base URL), never from Redis itself.
  chainSource: async () => null,
  recordsWithFacts: async () => null,
  chainEnds: redisChainEnds,
  layout: redisLayout,
};

async function openRedisBackend(config: Readonly<Config>, context: BackendContext): Promise<OpenAuditBackend> {
  if (config.auditPartitions > 1) return openPartitionedBackend(config, context);
  const target = redisTarget(config)!;
  // The remembered head lives beside the JWT secret: one file per instance, written about once a second.
  const watch = { memoryFile: join(config.dataDir, 'redis-chain-head.json'), abandonEpoch: config.auditAbandonEpoch, log: context.log, now: context.now };
  const log = await RedisAuditLog.connect(target, { now: context.now, watch, replicas: config.auditReplicas });
  return {
    log,
    openCheckpoints: (key) => RedisCheckpointStore.connect(target, log.prefix, key),
    storeState: log.storeState,
    status: { kind: 'redis', fsync: 'redis', watch: () => log.watchStatus() },
    threads: () => ({}),
  };
}
