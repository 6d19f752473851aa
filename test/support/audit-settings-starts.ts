// For the tests of audit settings across starts: one real redis-server per file, emptied before each test, and service
// processes on a DATA_DIR with the sample registry that take no Redis or audit setting from the environment.
import { Redis } from 'ioredis';
import { after, before, beforeEach } from 'node:test';
import { freePort } from '../../src/tools/devnet/free-port.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { SAMPLE_REGISTRY } from './service.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';

/** Call at a test file's top level: `url` is the server's once the file's tests run; each test finds it empty. */
export function useRedisEmptiedPerTest(): { readonly url: string } {
  let server: RedisServer | undefined;
  before(async () => {
    server = await startRedisServer();
  });
  after(() => server?.stop());
  beforeEach(async () => {
    const client = new Redis(server!.url);
    await client.flushall();
    client.disconnect();
  });
  return { get url() { return server!.url; } };
}

export type StartOnDataDir = (dataDir: string, env: Record<string, string | undefined>, expectExit?: boolean) => Promise<ServiceProcess>;

/**
 * Starts the service on `dataDir` with `base` and then `env` over it; REDIS_URL, AUDIT_STORE and AUDIT_PARTITIONS
 * come only from `env`. With `expectExit`, a refused start resolves with an empty base (startServiceProcess).
 */
export function startOnDataDir(base: Record<string, string> = {}): StartOnDataDir {
  return async (dataDir, env, expectExit = false) => startServiceProcess({
    DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', AUDIT_FSYNC: 'off', ...base,
    REDIS_URL: undefined, AUDIT_STORE: undefined, AUDIT_PARTITIONS: undefined, ...env,
  }, { expectExit });
}
