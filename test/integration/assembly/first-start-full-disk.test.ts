// The very first start on a DATA_DIR whose disk has no free byte (issue 39): with one audit chain (the file log and the
// embedded store) and with two (a partitioned Redis chain, AUDIT_PARTITIONS=2), the service listens, says the disk is full
// and where, refuses every evaluation with a stable code, and once the disk has room writes its generated keys and
// epoch.json and takes evaluations; a restart then runs with the same keys and epoch (ARCHITECTURE.md "A full disk at start").
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade, type HttpResult } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { pollUntil } from '../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../support/full-disk.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis?.stop();
});
// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('first-start-full-disk-test-');

/** What a first start writes in DATA_DIR before it can record anything. */
const GENERATED = ['audit-signing-key', 'epoch.json', 'jwt-secret', 'permit-signer-key'];

const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const evaluate = (service: ServiceProcess, n: number): Promise<HttpResult> =>
  postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n), amount: 1, request_id: `first-start-full-disk-${n}` }));
const alive = (service: ServiceProcess) => service.child.exitCode === null && service.child.signalCode === null;
/** The keys a start publishes (GET /): the checkpoint signing key and the permit signer's address. */
const publishedKeys = async (service: ServiceProcess) => {
  const root = (await getJson(`${service.base}/`)).json;
  return { audit_key: root.audit_key, permit_signer: root.permit_signer };
};
const epochId = (dataDir: string) => (JSON.parse(readFileSync(join(dataDir, 'epoch.json'), 'utf8')) as { id: string }).id;

/** The opening's words while it waits: what could not open, the disk, the room on it, the system's words, what the operator does. */
const waitingForRoom = (dataDir: string) => new RegExp(`^the audit log and the store under DATA_DIR could not open: the disk is full at ${dataDir}/\\S+ ` +
  '\\(0 bytes free; [^)]*(ENOSPC|No space left on device)[^)]*\\)\\. Free space on that disk: the service opens them by itself');

/**
 * A fresh DATA_DIR on its own small disk, filled to its last byte before the first start with `env`: it must listen and
 * refuse, leave no half-written file, and once the filler goes write its keys and epoch and record verdicts; a restart
 * then publishes the same keys, keeps the epoch and verifies the chain.
 */
async function firstStartOnFullDisk(env: Record<string, string>, storeKind: string): Promise<void> {
  const dataDir = disks.mount(await tempDir(), '4m');
  const filler = join(dataDir, 'filler');
  fillDisk(filler);
  assert.equal(statfsSync(dataDir).bavail, 0, 'not one free block is left');
  const start = () => startServiceProcess({
    PORT: '0', DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', RATE_LIMITS: 'off', REQUEST_LOG: 'off', ...env,
  });
  let service = await start();
  try {
    const health = await getJson(`${service.base}/healthz`);
    assert.deepEqual([health.status, health.json.code], [503, 'store_unavailable'], health.text);
    assert.match(health.json.reason, waitingForRoom(dataDir));
    const full = (await getJson(`${service.base}/status.json`)).json;
    assert.deepEqual([full.components.audit.status, full.components.store.status], ['down', 'down'], JSON.stringify(full.components));
    assert.match(full.components.audit.reason, waitingForRoom(dataDir));
    assert.match(full.components.store.reason, waitingForRoom(dataDir));
    for (let n = 1; n <= 3; n++) {
      const refused = await evaluate(service, n);
      // Fail closed, with a stable code: never a 500, never a verdict without its record.
      assert.equal(refused.status, 503, refused.text);
      assert.ok(['store_unavailable', 'audit_unavailable'].includes(refused.json.code), refused.text);
      assert.deepEqual([refused.json.decision, refused.json.audit_seq], ['deny', null], refused.text);
    }
    // The generated keys are held in memory: nothing of them, whole or half, is on the disk yet.
    assert.deepEqual(readdirSync(dataDir).filter((name) => GENERATED.includes(name) || name.endsWith('.tmp')), []);
    assert.ok(alive(service), `the service died on the full disk:\n${service.output()}`);
    const keys = await publishedKeys(service);

    rmSync(filler);
    const taken = await pollUntil('an evaluation recorded once the disk has room', () => evaluate(service, 4), (answer) => answer.status === 200, 60_000, 200);
    assert.match(taken.json.audit_hash, /^[0-9a-f]{64}$/, taken.text);
    assert.match(service.output(), /the audit log and the store under DATA_DIR opened at attempt \d+: the disk under .* has room again/);
    const healed = (await getJson(`${service.base}/status.json`)).json;
    assert.deepEqual([healed.components.audit.status, healed.components.store.status, healed.components.store.kind], ['ok', 'ok', storeKind]);
    const written = readdirSync(dataDir);
    assert.deepEqual(GENERATED.filter((name) => !written.includes(name)), [], `written: ${written.join(', ')}`);
    assert.deepEqual(written.filter((name) => name.endsWith('.tmp')), []);
    const epoch = epochId(dataDir);
    await service.stop('SIGTERM');
    assert.equal(service.child.exitCode, 0, service.output());

    // The keys the first start published (and signed with once the disk had room) are the ones it kept.
    service = await start();
    assert.deepEqual(await publishedKeys(service), keys);
    assert.equal(epochId(dataDir), epoch);
    const again = await evaluate(service, 5);
    assert.equal(again.status, 200, again.text);
    const replay = await evaluate(service, 4);
    assert.deepEqual([replay.status, replay.json.audit_hash], [200, taken.json.audit_hash], replay.text);
    const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
    assert.equal(verdict.json.healthy, true, verdict.text);
  } finally {
    await service.stop('SIGTERM');
  }
  assert.equal(service.child.exitCode, 0, service.output());
}

describe('the first start on a DATA_DIR whose disk has no free byte', () => {
  it('with one audit chain (file log, embedded store): listens, reports the full disk, refuses evaluations with 503, then writes its keys and epoch once the disk has room and records verdicts; a restart keeps the keys and the epoch', () =>
    firstStartOnFullDisk({ AUDIT_FSYNC: 'always' }, 'lmdb'));

  it('with AUDIT_PARTITIONS=2 (Redis chains): listens, reports the full disk, refuses evaluations with 503, then writes its keys and epoch once the disk has room and records verdicts; a restart keeps the keys and the epoch', () =>
    firstStartOnFullDisk({ REDIS_URL: redis.url, AUDIT_STORE: 'redis', AUDIT_PARTITIONS: '2' }, 'redis'));
});
