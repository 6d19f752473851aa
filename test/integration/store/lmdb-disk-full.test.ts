// The whole DATA_DIR (LMDB store and audit log) on one small disk that fills up and frees again: the service stays up, refuses with 503s, says why, and heals by itself.
import assert from 'node:assert/strict';
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade, type HttpResult } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { pollUntil } from '../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../support/full-disk.js';

// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('lmdb-disk-full-test-');

/** A DATA_DIR that is a small filesystem of its own, so filling it fills nothing else. */
async function smallDataDir(): Promise<string> {
  return disks.mount(await tempDir(), '4m');
}

/** Room the file audit log needs to start (ARCHITECTURE.md "A log that heals" checks for as much). */
const ROOM_TO_START = 64 * 1024;

/** What the callers were told: each acknowledged request_id with its record. */
class Acknowledged {
  readonly records = new Map<string, { seq: number; hash: string }>();
  private next = 0;

  /** Evaluates a new wallet under a new request_id, whose claim and verdict the store must write. */
  async evaluate(service: ServiceProcess): Promise<HttpResult> {
    const n = ++this.next;
    const requestId = `disk-full-${n}-${'r'.repeat(100)}`;
    const answer = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: address(n), amount: 1, request_id: requestId }));
    if (answer.status === 200) {
      assert.ok(![...this.records.values()].some((r) => r.seq === answer.json.audit_seq), `seq ${answer.json.audit_seq} acknowledged twice`);
      this.records.set(requestId, { seq: answer.json.audit_seq, hash: answer.json.audit_hash });
    } else {
      // Fail closed, with a stable code: never a 500, never a verdict without its record.
      assert.equal(answer.status, 503, answer.text);
      assert.ok(['store_unavailable', 'audit_unavailable'].includes(answer.json.code), answer.text);
      assert.equal(answer.json.audit_seq ?? null, null, answer.text);
    }
    return answer;
  }

  /** Twenty at once, as a fleet of new wallets arrives. */
  burst(service: ServiceProcess): Promise<HttpResult[]> {
    return Promise.all(Array.from({ length: 20 }, () => this.evaluate(service)));
  }
}

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/**
 * Twenty sign-in messages for new addresses at once: store writes that no audit record waits on,
 * so they reach the store while the audit log refuses evaluations.
 */
let signIns = 1_000_000;
async function signInBurst(service: ServiceProcess): Promise<HttpResult[]> {
  const answers = await Promise.all(Array.from({ length: 20 }, () => getJson(`${service.base}/api/v1/auth/nonce?address=${address(++signIns)}`)));
  for (const answer of answers) {
    if (answer.status !== 200) assert.deepEqual([answer.status, answer.json.code], [503, 'store_unavailable'], answer.text);
  }
  return answers;
}

async function start(dataDir: string): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: '0', DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', RATE_LIMITS: 'off', REQUEST_LOG: 'off', AUDIT_FSYNC: 'always',
  });
}

/** Sends `burst` until /status.json reports the store down, and returns that document. */
function storeReportedDown(service: ServiceProcess, burst: () => Promise<HttpResult[]>) {
  return pollUntil('the store reported down', async () => {
    await burst();
    return (await getJson(`${service.base}/status.json`)).json;
  }, (doc) => doc.components.store.status === 'down', 60_000, 0);
}

const alive = (service: ServiceProcess) => service.child.exitCode === null && service.child.signalCode === null;

describe('a full disk under DATA_DIR with the LMDB store', () => {
  it('answers 503 store_unavailable and reports the store down while full, stays up across a restart, and heals by itself', async () => {
    const dataDir = await smallDataDir();
    const acknowledged = new Acknowledged();
    let service = await start(dataDir);
    try {
      for (let i = 0; i < 5; i++) assert.equal((await acknowledged.evaluate(service)).status, 200);
      const filler = join(dataDir, 'filler');
      fillDisk(filler);

      const storeFile = join(dataDir, 'store', 'data.mdb');
      const full = await storeReportedDown(service, () => acknowledged.burst(service));
      assert.equal(full.components.store.kind, 'lmdb');
      assert.match(full.components.store.reason, new RegExp(`^writes to ${storeFile} fail: No space left on device.*; free space on its disk`));
      const refused = await pollUntil('a store_unavailable answer', async () => (await acknowledged.burst(service)).find((a) => a.json.code === 'store_unavailable'),
        (answer) => answer !== undefined, 60_000, 0);
      assert.equal(refused!.status, 503);
      assert.ok(alive(service), `the service died on the full disk:\n${service.output()}`);

      // A stop and a start on the disk that is still full. The file audit log needs some room to
      // start (its index marks itself in use), and takes it; the store then finds none.
      await service.stop('SIGTERM');
      assert.equal(service.child.exitCode, 0, service.output());
      truncateSync(filler, statSync(filler).size - ROOM_TO_START);
      service = await start(dataDir);
      const again = await storeReportedDown(service, () => signInBurst(service));
      // A write that finds part of the room it needs is cut short, which LMDB reports as EIO.
      assert.match(again.components.store.reason, new RegExp(`^writes to ${storeFile} fail: (No space left on device|Input/output error)`));
      for (const answer of await acknowledged.burst(service)) assert.notEqual(answer.status, 200, answer.text);
      assert.ok(alive(service), `the restarted service died on the full disk:\n${service.output()}`);

      rmSync(filler);
      await pollUntil('evaluations recorded again', () => acknowledged.evaluate(service), (answer) => answer.status === 200, 15_000, 100);
      const healed = await pollUntil('the store reported ok', async () => (await getJson(`${service.base}/status.json`)).json,
        (doc) => doc.components.store.status === 'ok' && doc.components.audit.status === 'ok', 15_000, 100);
      assert.deepEqual(healed.components.store, { status: 'ok', kind: 'lmdb' });
      assert.ok(alive(service));

      // Nothing acknowledged was lost: every record is in the chain, once, and the chain verifies.
      const listed = (await getJson(`${service.base}/api/v1/audit/global?limit=1000`)).json.records as Array<{ seq: number; hash: string }>;
      const told = [...acknowledged.records.values()].map((r) => [r.seq, r.hash]).sort((a, b) => (a[0] as number) - (b[0] as number));
      assert.deepEqual(listed.map((r) => [r.seq, r.hash]).reverse(), told);
      const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
      assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, acknowledged.records.size]);
      // A request_id acknowledged before the disk filled replays its verdict: the store kept it.
      const [firstId, first] = [...acknowledged.records][0];
      const replay = await postJson(`${service.base}/api/v1/analyze/free`,
        sampleTrade({ wallet: `0x${(1).toString(16).padStart(40, '0')}`, amount: 1, request_id: firstId }));
      assert.deepEqual([replay.status, replay.json.audit_seq, replay.json.audit_hash], [200, first.seq, first.hash]);
    } finally {
      await service.stop('SIGTERM');
    }
  });
});
