// For the tests of audit settings across starts: one real redis-server per file, emptied before each test, and service
// processes on a DATA_DIR with the sample registry that take no Redis or audit setting from the environment.
import { Redis } from 'ioredis';
import { after, before, beforeEach } from 'node:test';
import { freePort } from '../../src/tools/devnet/free-port.js';
import { startDataDirWriter } from './data-dir-writer.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { SAMPLE_REGISTRY, type TestService } from './service.js';
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

const defaults = { HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', AUDIT_FSYNC: 'off' };

export type StartOnDataDir = (dataDir: string, env: Record<string, string | undefined>, expectExit?: boolean) => Promise<ServiceProcess>;

/**
 * Starts the service on `dataDir` with `base` and then `env` over it; REDIS_URL, AUDIT_STORE and AUDIT_PARTITIONS
 * come only from `env`. With `expectExit`, a refused start resolves with an empty base (startServiceProcess).
 */
export function startOnDataDir(base: Record<string, string> = {}): StartOnDataDir {
  return async (dataDir, env, expectExit = false) => startServiceProcess({
    DATA_DIR: dataDir, PORT: String(await freePort()), ...defaults, ...base,
    REDIS_URL: undefined, AUDIT_STORE: undefined, AUDIT_PARTITIONS: undefined, ...env,
  }, { expectExit });
}

/**
 * As startOnDataDir, for the service that only writes the DATA_DIR (and Redis) the starts under test then open: it runs
 * in this process (data-dir-writer.ts), which takes nothing from the environment.
 */
export function writeOnDataDir(base: Record<string, string> = {}): (dataDir: string, env: Record<string, string | undefined>) => Promise<TestService> {
  return (dataDir, env) => startDataDirWriter({ ...defaults, ...base, ...env }, dataDir);
}
