// A restart on a DATA_DIR whose disk has no free byte left (issue 39): the service listens, says why nothing can be
// recorded, refuses every evaluation with a stable code, and opens its audit log and store by itself once the disk has room,
// continuing the chain where it stopped (ARCHITECTURE.md "A full disk at start").
import assert from 'node:assert/strict';
import { rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade, type HttpResult } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { pollUntil } from '../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../support/full-disk.js';

// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('full-disk-restart-test-');

/** A DATA_DIR that is a small filesystem of its own, so filling it fills nothing else. */
async function smallDataDir(): Promise<string> {
  return disks.mount(await tempDir(), '4m');
}

function start(dataDir: string): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: '0', DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', RATE_LIMITS: 'off', REQUEST_LOG: 'off', AUDIT_FSYNC: 'always',
  });
}

const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const evaluate = (service: ServiceProcess, n: number): Promise<HttpResult> =>
  postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n), amount: 1, request_id: `full-disk-restart-${n}` }));
const status = async (service: ServiceProcess) => (await getJson(`${service.base}/status.json`)).json;
const alive = (service: ServiceProcess) => service.child.exitCode === null && service.child.signalCode === null;

/** The opening's words while it waits: the disk, the room on it, the system's words, what the operator does. */
const waitingForRoom = (dataDir: string) => new RegExp(`^the audit log and the store under DATA_DIR could not open: the disk is full at ${dataDir} ` +
  '\\(0 bytes free; [^)]*(ENOSPC|No space left on device)[^)]*\\)\\. Free space on that disk: the service opens them by itself');

/**
 * Three verdicts, a stop by `signal`, the disk filled to its last byte, a start: it must listen and refuse, each
 * component `down` names the full disk as `reasons` asks (audit, store), and once the filler goes the chain goes on.
 */
async function restartOnFullDisk(
  signal: NodeJS.Signals, reasons: (dataDir: string) => { audit: RegExp; store: RegExp | null }, { dropIndex = false } = {},
): Promise<void> {
  const dataDir = await smallDataDir();
  let service = await start(dataDir);
  const told: Array<{ seq: number; hash: string }> = [];
  try {
    for (let n = 1; n <= 3; n++) {
      const answer = await evaluate(service, n);
      assert.equal(answer.status, 200, answer.text);
      told.push({ seq: answer.json.audit_seq, hash: answer.json.audit_hash });
    }
    await service.stop(signal);
    // An index to rebuild at open (one moved aside, or a log from before the index lived in LMDB): that needs room.
    if (dropIndex) rmSync(join(dataDir, 'audit', 'index'), { recursive: true });

    const filler = join(dataDir, 'filler');
    fillDisk(filler);
    assert.equal(statfsSync(dataDir).bavail, 0, 'not one free block is left');
    service = await start(dataDir);

    const full = await status(service);
    const expected = reasons(dataDir);
    assert.equal(full.components.audit.status, 'down', JSON.stringify(full.components.audit));
    assert.match(full.components.audit.reason, expected.audit);
    if (expected.store) {
      assert.equal(full.components.store.status, 'down', JSON.stringify(full.components.store));
      assert.match(full.components.store.reason, expected.store);
      const health = await getJson(`${service.base}/healthz`);
      assert.deepEqual([health.status, health.json.code], [503, 'store_unavailable'], health.text);
    }
    assert.deepEqual([full.components.store.kind, full.components.audit.kind], ['lmdb', 'file']);
    for (let n = 4; n <= 6; n++) {
      const refused = await evaluate(service, n);
      // Fail closed, with a stable code: never a 500, never a verdict without its record.
      assert.equal(refused.status, 503, refused.text);
      assert.ok(['store_unavailable', 'audit_unavailable'].includes(refused.json.code), refused.text);
      assert.deepEqual([refused.json.decision, refused.json.audit_seq], ['deny', null], refused.text);
    }
    assert.ok(alive(service), `the service died on the full disk:\n${service.output()}`);

    rmSync(filler);
    const taken = await pollUntil('an evaluation recorded once the disk has room', () => evaluate(service, 7), (answer) => answer.status === 200, 30_000, 200);
    assert.equal(taken.json.audit_seq, told.length + 1, 'the chain goes on from the last record before the restart');
    if (expected.store) assert.match(service.output(), /the audit log and the store under DATA_DIR opened at attempt \d+: the disk under .* has room again/);
    const healed = await status(service);
    assert.deepEqual([healed.components.audit.status, healed.components.store.status], ['ok', 'ok'], JSON.stringify(healed.components));
    assert.deepEqual(healed.components.audit.head, { seq: taken.json.audit_seq, hash: taken.json.audit_hash });

    // Nothing acknowledged twice: a request_id answered before the restart replays its verdict, and the chain verifies.
    const replay = await evaluate(service, 1);
    assert.deepEqual([replay.status, replay.json.audit_seq, replay.json.audit_hash], [200, told[0].seq, told[0].hash]);
    const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
    assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, told.length + 1], verdict.text);
    const listed = (await getJson(`${service.base}/api/v1/audit/global?limit=1000`)).json.records as Array<{ seq: number; hash: string }>;
    assert.deepEqual(listed.map((r) => [r.seq, r.hash]).reverse(), [...told, { seq: taken.json.audit_seq, hash: taken.json.audit_hash }].map((r) => [r.seq, r.hash]));
  } finally {
    await service.stop('SIGTERM');
  }
  assert.equal(service.child.exitCode, 0, service.output());
}

describe('a restart on a DATA_DIR whose disk has no free byte', () => {
  // A crash with the audit index to be built again at open, which needs room: the open waits for it.
  it('after a crash (SIGKILL) with the audit index to rebuild: listens, reports the log and the store down with the full disk, refuses evaluations with 503, and opens them once the disk has room, continuing the chain', () =>
    restartOnFullDisk('SIGKILL', (dataDir) => ({ audit: waitingForRoom(dataDir), store: waitingForRoom(dataDir) }), { dropIndex: true }));

  // A crash with the index in place: it opens in the room its files hold, and the log refuses appends on its own.
  it('after a crash (SIGKILL) with its index in place: listens, reports the log down with the full disk, refuses evaluations with 503, and takes them again once the disk has room', () =>
    restartOnFullDisk('SIGKILL', () => ({ audit: /disk is full/, store: null })));

  // A clean stop leaves nothing to recover: the log and the store open in the room their files already hold, and the log refuses appends on its own.
  it('after a clean stop (SIGTERM): listens, reports the log down with the full disk, refuses evaluations with 503, and takes them again once the disk has room', () =>
    restartOnFullDisk('SIGTERM', () => ({ audit: /disk is full/, store: null })));
});
