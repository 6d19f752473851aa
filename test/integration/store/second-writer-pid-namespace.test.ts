// Two services on one DATA_DIR, each PID 1 in a PID namespace of its own (two containers on one volume):
// the second is refused while the first runs, naming it, and starts once the first is killed, with nothing cleaned by hand;
// with the file audit log and with the audit chain on Redis, since DATA_DIR is locked whatever the backends.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../src/tools/devnet/free-port.js';
import { postJson, sampleTrade, SAMPLE_REGISTRY } from '../../support/service.js';
import { exited, startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('second-writer-');
/** Each service is PID 1 of a new PID namespace with its own /proc; unshare waits for it, and ends it should unshare be killed. */
const OWN_PID_NAMESPACE = ['unshare', '--pid', '--fork', '--kill-child=SIGTERM', '--mount-proc'];

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(() => redis.stop());

/** The backends a service runs with: the file audit log beside the LMDB store, or the audit chain and the store on Redis. */
type Backends = () => Record<string, string>;
const FILE_LOG: Backends = () => ({});
/** A throwaway redis-server of this file's, so the chain starts at seq 1. */
const REDIS_CHAIN: Backends = () => ({ REDIS_URL: redis.url, AUDIT_STORE: 'redis' });

async function startContained(dataDir: string, backends: Backends, expectExit = false): Promise<ServiceProcess> {
  const env = {
    DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', AUDIT_FSYNC: 'off', ...backends(),
  };
  return startServiceProcess(env, { expectExit, wrap: OWN_PID_NAMESPACE });
}

/** The service's own pid as the host sees it: the one child of `unshare --fork`. */
function servicePid(wrapper: ServiceProcess): number {
  const pid = wrapper.child.pid!;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  assert.equal(children.length, 1, `unshare ${pid} has one child`);
  return children[0];
}

async function auditSeq(service: ServiceProcess, wallet: string): Promise<number> {
  const verdict = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet }));
  assert.equal(verdict.status, 200, verdict.text);
  return verdict.json.audit_seq;
}

/** The first service runs; a second on its DATA_DIR is refused, naming it; once the first is SIGKILLed a third takes over its chain. */
async function refusedWhileHeld(backends: Backends): Promise<void> {
  const dataDir = await tempDir();
  const lockFile = join(dataDir, 'data-dir.lock');
  const first = await startContained(dataDir, backends);
  try {
    assert.match(readFileSync(lockFile, 'utf8'), /^\{.*"pid":1,.*\}\n$/, 'the first service is PID 1 in its namespace, as in a container');
    assert.equal(await auditSeq(first, `0x${'a1'.repeat(20)}`), 1);

    const second = await startContained(dataDir, backends, true);
    assert.equal(second.base, '', `the second service must not listen:\n${second.output()}`);
    assert.match(second.output(), /failed to start: .* is in use by the service on host .*, pid 1, started at \d{4}-\d\d-\d\dT[^ ]+ \(lock file .*data-dir\.lock\); two services on one DATA_DIR would fork the audit chain and share its store/);
    assert.equal(await auditSeq(first, `0x${'a2'.repeat(20)}`), 2, 'the first service still writes its chain');

    process.kill(servicePid(first), 'SIGKILL');
    await exited(first.child);
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await first.stop('SIGKILL');
  }
  // The lock file is still there, naming a PID 1 that is gone; the kernel's lock went with it.
  assert.match(readFileSync(lockFile, 'utf8'), /"pid":1,/);
  const third = await startContained(dataDir, backends);
  try {
    assert.equal(await auditSeq(third, `0x${'a3'.repeat(20)}`), 3, 'the chain goes on where the killed service left it');
  } finally {
    // Stopped itself, so unshare exits once the service has closed its files.
    process.kill(servicePid(third), 'SIGTERM');
    await exited(third.child);
  }
}

describe('a second service on the same DATA_DIR from another PID namespace', () => {
  it('is refused while the first runs, naming the holder, and starts after the first is SIGKILLed without any cleanup', () => refusedWhileHeld(FILE_LOG));

  it('is refused the same with the audit chain and the store on Redis (AUDIT_STORE=redis), which keep nothing but epoch.json and keys in DATA_DIR', () =>
    refusedWhileHeld(REDIS_CHAIN));
});
