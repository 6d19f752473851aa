// A move to other audit settings used to start new chains at seq 1 with nothing linking them to the old ones, and a
// fresh DATA_DIR could fork a shared Redis's chains with another AUDIT_PARTITIONS. Now each new chain's first record is
// a handover naming where every old chain ended, Redis keeps its own note of the chain count, and a move back continues
// the old chain with a handover record, so no acknowledged seq ever names a second record.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT_HEALTHY, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { useRedisEmptiedPerTest, startOnDataDir, writeOnDataDir } from '../../../support/audit-settings-starts.js';
import { getJson, postJson, sampleTrade } from '../../../support/service.js';
import type { ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-chain-handover-');
const redis = useRedisEmptiedPerTest();
// Instances sharing the chains sign with one key.
const settings = { RATE_LIMITS: 'off', AUDIT_CHECKPOINT_RECORDS: '10', AUDIT_SIGNING_KEY: Buffer.alloc(32, 7).toString('base64') };
const start = startOnDataDir(settings);
// Each test's first service only writes the chain the starts under test move from.
const write = writeOnDataDir(settings);

/** What the helpers below need of a service: where it listens (a process, or the writer in this process). */
type Listening = Pick<ServiceProcess, 'base'>;

const walletOf = (i: number) => `0x${(0x10 + i).toString(16).padStart(2, '0').repeat(20)}`;

async function verdicts(service: Listening, count: number, from = 0): Promise<Array<{ seq: number; chain?: number }>> {
  const seqs = [];
  for (let i = from; i < from + count; i++) {
    const verdict = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: walletOf(i) }));
    assert.equal(verdict.status, 200, verdict.text);
    seqs.push({ seq: verdict.json.audit_seq, ...(verdict.json.audit_chain === undefined ? {} : { chain: verdict.json.audit_chain }) });
  }
  return seqs;
}

/** Every record of the log, oldest first. */
async function records(service: Listening): Promise<any[]> {
  const listed = await getJson(`${service.base}/api/v1/audit/global?limit=1000`);
  assert.equal(listed.status, 200, listed.text);
  return listed.json.records.reverse();
}

const epochOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'epoch.json'), 'utf8'));
const lastCheckpoint = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'audit', 'checkpoints.log'), 'utf8').trim().split('\n').at(-1)!);

async function verifiedHealthy(location: string): Promise<void> {
  let out = '';
  const status = await runAuditVerify([location, '--threads', '1'], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } });
  assert.equal(status, EXIT_HEALTHY, out);
}

describe('a new chain begins with where the old one ended', () => {
  it('starts the Redis chain after 40 file records with a handover naming file seq 40, its head and its last checkpoint; both chains verify', async () => {
    const dataDir = await tempDir();
    const file = await write(dataDir, {});
    await verdicts(file, 40);
    const [fileHead] = (await getJson(`${file.base}/api/v1/audit/global?limit=1`)).json.records;
    assert.equal(fileHead.seq, 40);
    await file.stop();
    const fileEpoch = epochOf(dataDir).id;
    const checkpoint = lastCheckpoint(dataDir);
    assert.deepEqual([checkpoint.tree_size, checkpoint.last_hash], [40, fileHead.hash], 'the file chain was signed to its end');

    const moved = await start(dataDir, { REDIS_URL: redis.url, DATA_DIR_NEW_EPOCH: fileEpoch });
    try {
      assert.deepEqual(await verdicts(moved, 1, 40), [{ seq: 2 }], 'the handover took seq 1');
      const [handover, verdict] = await records(moved);
      const epoch = epochOf(dataDir);
      assert.deepEqual(
        { seq: handover.seq, wallet: handover.wallet, channel: handover.channel, decision: handover.decision, prev_hash: handover.prev_hash },
        { seq: 1, wallet: 'audit-log', channel: 'audit', decision: 'error', prev_hash: '0'.repeat(64) },
      );
      assert.deepEqual(handover.request.chain_handover.from, {
        epoch: fileEpoch, audit_store: 'file', audit_partitions: 1,
        chains: [{ chain: 0, final_seq: 40, final_hash: fileHead.hash }], checkpoint,
      });
      assert.deepEqual(handover.request.chain_handover.to, { epoch: epoch.id, partitions: 1, chain: 0 });
      assert.equal(handover.reasons[0],
        `AUDIT_CHAIN_HANDOVER: this chain continues the audit chains of epoch ${fileEpoch} (AUDIT_STORE=file AUDIT_PARTITIONS=1): chain 0 ended at seq 40`);
      assert.equal(verdict.prev_hash, handover.hash);
      assert.equal(epoch.handover_pending, false);

      const verified = await getJson(`${moved.base}/api/v1/audit/verify?limit=1000`);
      assert.deepEqual([verified.status, verified.json.healthy, verified.json.total], [200, true, 2], verified.text);
      await verifiedHealthy(moved.base);
    } finally {
      await moved.stop();
    }
    // The old chain stays where it was, readable and whole with the old settings.
    await verifiedHealthy(dataDir);
  });

  it('refuses a fresh DATA_DIR asking AUDIT_PARTITIONS=2 of a Redis holding one chain, naming both counts; the named move hands over to both chains', async () => {
    const first = await tempDir();
    const one = await write(first, { REDIS_URL: redis.url });
    await verdicts(one, 2, 10);
    const [oneHead] = (await getJson(`${one.base}/api/v1/audit/global?limit=1`)).json.records;
    await one.stop();
    const oneEpoch = epochOf(first).id;

    const fresh = await tempDir();
    const refused = await start(fresh, { REDIS_URL: redis.url, AUDIT_PARTITIONS: '2' }, true);
    assert.equal(refused.base, '', `two new chains must not start beside the single one:\n${refused.output()}`);
    assert.match(refused.output(), new RegExp(`the shared Redis holds audit chains written with AUDIT_PARTITIONS=1 \\(epoch ${oneEpoch}\\), ` +
      `and this start asks for AUDIT_PARTITIONS=2: .* set DATA_DIR_NEW_EPOCH=${oneEpoch}\\.`));

    const moved = await start(fresh, { REDIS_URL: redis.url, AUDIT_PARTITIONS: '2', DATA_DIR_NEW_EPOCH: oneEpoch });
    // A second instance on its own DATA_DIR with the same settings shares the chains.
    const beside = await start(await tempDir(), { REDIS_URL: redis.url, AUDIT_PARTITIONS: '2' });
    try {
      const handovers = (await records(moved)).filter((record) => record.channel === 'audit');
      assert.deepEqual(handovers.map((record) => [record.chain, record.seq]).sort(), [[0, 1], [1, 1]]);
      for (const handover of handovers) {
        assert.deepEqual(handover.request.chain_handover.from, {
          epoch: oneEpoch, audit_store: 'redis', audit_partitions: 1,
          chains: [{ chain: 0, final_seq: 2, final_hash: oneHead.hash }], checkpoint: handover.request.chain_handover.from.checkpoint,
        });
        assert.equal(handover.request.chain_handover.from.checkpoint?.last_hash, oneHead.hash, 'the single chain was signed to its end');
      }
      assert.ok((await verdicts(beside, 4, 30)).every(({ seq }) => seq >= 2), 'new verdicts follow the handovers');
      const verified = await getJson(`${beside.base}/api/v1/audit/verify?limit=1000`);
      assert.deepEqual([verified.status, verified.json.healthy], [200, true], verified.text);
    } finally {
      await Promise.all([moved.stop(), beside.stop()]);
    }
  });

  it('moving back from 2 chains to 1 continues the single chain with a handover: seqs 1 and 2 keep their records', async () => {
    const dataDir = await tempDir();
    const one = await write(dataDir, { REDIS_URL: redis.url });
    assert.deepEqual(await verdicts(one, 2), [{ seq: 1 }, { seq: 2 }]);
    const before = await records(one);
    await one.stop();

    const two = await start(dataDir, { REDIS_URL: redis.url, AUDIT_PARTITIONS: '2', DATA_DIR_NEW_EPOCH: epochOf(dataDir).id });
    await verdicts(two, 4, 50);
    const ends = [0, 1].map(() => ({ seq: 0, hash: '' }));
    for (const record of await records(two)) if (record.seq > ends[record.chain].seq) ends[record.chain] = { seq: record.seq, hash: record.hash };
    await two.stop();
    const twoEpoch = epochOf(dataDir).id;

    const back = await start(dataDir, { REDIS_URL: redis.url, DATA_DIR_NEW_EPOCH: twoEpoch });
    try {
      assert.deepEqual(await verdicts(back, 1, 60), [{ seq: 4 }]);
      const after = await records(back);
      assert.deepEqual(after.slice(0, 2), before, 'acknowledged seqs 1 and 2 still name the same records');
      const handover = after[2];
      assert.deepEqual([handover.seq, handover.channel, handover.prev_hash], [3, 'audit', before[1].hash]);
      assert.deepEqual(handover.request.chain_handover.from, {
        epoch: twoEpoch, audit_store: 'redis', audit_partitions: 2,
        chains: ends.map((end, chain) => ({ chain, final_seq: end.seq, final_hash: end.hash })), checkpoint: handover.request.chain_handover.from.checkpoint,
      });
      const verified = await getJson(`${back.base}/api/v1/audit/verify?limit=1000`);
      assert.deepEqual([verified.status, verified.json.healthy, verified.json.total], [200, true, 4], verified.text);
    } finally {
      await back.stop();
    }
  });

  it('refuses a move whose old chain cannot be read, writing nothing, until the operator declares it gone; the handover then says so', async () => {
    const dataDir = await tempDir();
    const shared = await write(dataDir, { REDIS_URL: redis.url });
    await verdicts(shared, 2, 70);
    await shared.stop();
    const redisEpoch = epochOf(dataDir);

    // Back to a file log on this host, with no Redis to read the old chain's end from.
    const refused = await start(dataDir, { DATA_DIR_NEW_EPOCH: redisEpoch.id }, true);
    assert.equal(refused.base, '', `a chain whose link to the old one is unknown must not start:\n${refused.output()}`);
    assert.match(refused.output(), new RegExp(`the audit chains of epoch ${redisEpoch.id} \\(AUDIT_STORE=redis AUDIT_PARTITIONS=1\\) cannot be read: ` +
      `no Redis is configured \\(REDIS_URL or REDIS_CLUSTER_NODES\\) to read it from\\. .* set DATA_DIR_OLD_CHAIN_GONE=${redisEpoch.id}:`));
    assert.deepEqual(epochOf(dataDir), redisEpoch, 'the refused move left the epoch as it was');
    assert.equal(existsSync(join(dataDir, 'audit', 'audit.log')), false, 'and opened no file log');

    const declared = await start(dataDir, { DATA_DIR_NEW_EPOCH: redisEpoch.id, DATA_DIR_OLD_CHAIN_GONE: redisEpoch.id });
    try {
      assert.deepEqual(await verdicts(declared, 1, 80), [{ seq: 2 }]);
      const [handover] = await records(declared);
      assert.deepEqual([handover.seq, handover.channel, handover.request.chain_handover.from], [1, 'audit', {
        epoch: redisEpoch.id, audit_store: 'redis', audit_partitions: 1, unread: 'no Redis is configured (REDIS_URL or REDIS_CLUSTER_NODES) to read it from',
      }]);
      assert.match(handover.reasons[0], /: its end could not be read \(no Redis is configured .*\) and an operator declared it gone$/);
    } finally {
      await declared.stop();
    }
  });
});
