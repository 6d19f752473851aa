// Two service processes on one real redis-server, offline, sharing the JWT secret and the audit signing key: what a
// scaled-out deployment is. Registers its own before/after hooks; the fields are set once `before` has run.
import { after, before } from 'node:test';
import { freePort, startRedisServer, type RedisServer } from './redis-server.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import { SAMPLE_REGISTRY } from './service.js';
import { useTempDirs } from './temp-dirs.js';

export interface TwoInstances {
  redis: RedisServer;
  a: ServiceProcess;
  b: ServiceProcess;
}

export function useTwoInstancesOnRedis(name: string): TwoInstances {
  const tempDir = useTempDirs(`guardrail-${name}-`);
  const pair = {} as TwoInstances;
  const JWT_SECRET = `${name}-two-instances-secret-of-at-least-32-characters`;
  const AUDIT_SIGNING_KEY = Buffer.alloc(32, 7).toString('base64');
  const instance = async (): Promise<ServiceProcess> => startServiceProcess({
    PORT: String(await freePort()), DATA_DIR: await tempDir(), REDIS_URL: pair.redis.url, AUDIT_STORE: 'redis', JWT_SECRET, AUDIT_SIGNING_KEY,
    WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, RPC_URL: undefined, RATE_LIMITS: 'off',
  });
  before(async () => {
    pair.redis = await startRedisServer();
    pair.a = await instance();
    pair.b = await instance();
  });
  after(async () => {
    await pair.a?.stop();
    await pair.b?.stop();
    await pair.redis?.stop();
  });
  return pair;
}
