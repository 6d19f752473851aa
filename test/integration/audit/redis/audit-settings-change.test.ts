// A change of AUDIT_STORE or AUDIT_PARTITIONS on a DATA_DIR that holds a chain used to start a second chain at seq 1;
// now the start is refused, naming what the data was written with and what was asked, until DATA_DIR_NEW_EPOCH accepts it.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { useRedisEmptiedPerTest, startOnDataDir, writeOnDataDir } from '../../../support/audit-settings-starts.js';
import { postJson, sampleTrade } from '../../../support/service.js';
import type { ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const tempDir = useTempDirs('audit-settings-change-');
// Each test its own chains, signed by its own DATA_DIR's key.
const redis = useRedisEmptiedPerTest();
const start = startOnDataDir();
// A test's first service only writes the chain the starts under test then find.
const write = writeOnDataDir();

async function verdictSeqs(service: Pick<ServiceProcess, 'base'>, count: number, from = 0): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = from; i < from + count; i++) {
    const verdict = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(0x10 + i).toString(16).repeat(20)}` }));
    assert.equal(verdict.status, 200, verdict.text);
    seqs.push(verdict.json.audit_seq);
  }
  return seqs;
}

const epochOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'epoch.json'), 'utf8'));
const onRedis = { REDIS_URL: () => redis.url };

describe('audit settings that do not match the data already in DATA_DIR', () => {
  it('refuses AUDIT_STORE=redis over a file chain, naming both, and a new epoch starts only when the operator names the old one', async () => {
    const dataDir = await tempDir();
    const file = await write(dataDir, {});
    assert.deepEqual(await verdictSeqs(file, 3), [1, 2, 3]);
    await file.stop();

    const refused = await start(dataDir, { REDIS_URL: onRedis.REDIS_URL() }, true);
    assert.equal(refused.base, '', `a redis chain must not start beside the file chain:\n${refused.output()}`);
    const { id } = epochOf(dataDir);
    assert.match(refused.output(), new RegExp(`was written with AUDIT_STORE=file AUDIT_PARTITIONS=1 STORE=lmdb \\(epoch ${id}\\), and this start asks for AUDIT_STORE=redis AUDIT_PARTITIONS=1 STORE=redis`));
    assert.match(refused.output(), new RegExp(`set DATA_DIR_NEW_EPOCH=${id}`));

    const moved = await start(dataDir, { REDIS_URL: onRedis.REDIS_URL(), DATA_DIR_NEW_EPOCH: id });
    try {
      assert.deepEqual(await verdictSeqs(moved, 1), [2], 'a new chain, on purpose, whose seq 1 is the handover record (audit-chain-handover.test.ts)');
    } finally {
      await moved.stop();
    }
    const epoch = epochOf(dataDir);
    assert.deepEqual([epoch.audit_store, epoch.previous.id, epoch.previous.audit_store], ['redis', id, 'file']);

    // Back to the file log: refused too, instead of going on at seq 4 as if the Redis chain never was.
    const back = await start(dataDir, {}, true);
    assert.equal(back.base, '', `the file chain must not silently continue:\n${back.output()}`);
    assert.match(back.output(), new RegExp(`was written with AUDIT_STORE=redis AUDIT_PARTITIONS=1 STORE=redis \\(epoch ${epoch.id}\\), and this start asks for AUDIT_STORE=file AUDIT_PARTITIONS=1 STORE=lmdb`));
  });

  it('refuses AUDIT_PARTITIONS 1 -> 2 on Redis', async () => {
    const dataDir = await tempDir();
    const one = await write(dataDir, { REDIS_URL: onRedis.REDIS_URL() });
    await verdictSeqs(one, 2, 10);
    await one.stop();

    const refused = await start(dataDir, { REDIS_URL: onRedis.REDIS_URL(), AUDIT_PARTITIONS: '2' }, true);
    assert.equal(refused.base, '', `two new chains must not start beside the single one:\n${refused.output()}`);
    assert.match(refused.output(), /was written with AUDIT_STORE=redis AUDIT_PARTITIONS=1 STORE=redis \(epoch [0-9a-f-]{36}\), and this start asks for AUDIT_STORE=redis AUDIT_PARTITIONS=2 STORE=redis/);
  });

  it('lets one of two first starts racing on an empty Redis with AUDIT_PARTITIONS 1 and 2 record its layout; the other is refused naming both, having written no chain', async () => {
    const [single, double] = await Promise.all([tempDir(), tempDir()]);
    // Writes wait (CLIENT PAUSE WRITE) until both starts have read the empty store and wait on a write of their own,
    // so the two reads meet whatever the processes' start-up times: the race, every run.
    const admin = new Redis(redis.url);
    await admin.call('CLIENT', 'PAUSE', '120000', 'WRITE');
    const racing = Promise.all([
      start(single, { REDIS_URL: onRedis.REDIS_URL() }, true),
      start(double, { REDIS_URL: onRedis.REDIS_URL(), AUDIT_PARTITIONS: '2' }, true),
    ]);
    const waitingOnWrites = async () => ((await admin.call('CLIENT', 'LIST')) as string).split('\n').filter((line) => / flags=\S*b/.test(line)).length;
    try {
      await waitUntil(async () => (await waitingOnWrites()) >= 2, 'both starts wait on a write', 120_000, 50);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    const starts = await racing;
    try {
      const listening = starts.filter((service) => service.base !== '');
      assert.equal(listening.length, 1, `exactly one start wins:\n${starts.map((service) => service.output()).join('\n----\n')}`);
      const winner = starts.indexOf(listening[0]) === 0 ? 1 : 2;
      const loser = starts.find((service) => service.base === '')!;
      const client = new Redis(redis.url);
      try {
        const note = JSON.parse((await client.get('tg:audit:layout'))!);
        assert.deepEqual([note.partitions, note.epoch], [winner, epochOf(winner === 1 ? single : double).id]);
        assert.match(loser.output(), new RegExp(`holds audit chains written with AUDIT_PARTITIONS=${winner} \\(epoch ${note.epoch}\\), and this start asks for AUDIT_PARTITIONS=${3 - winner}`));
        assert.match(loser.output(), new RegExp(`Start with AUDIT_PARTITIONS=${winner}; .* set DATA_DIR_NEW_EPOCH=${note.epoch}`));
        // The winner's chains take verdicts; the loser wrote none of its own (K = 1 keeps tg:audit:, K = 2 the {tg:audit:p.n} tags).
        assert.deepEqual(await verdictSeqs(listening[0], 1, 30), [1]);
        const chainKeys = (await client.keys('*audit*')).filter((key) => key.endsWith('head'));
        assert.deepEqual(chainKeys.map((key) => key.startsWith('{tg:audit:') ? 2 : 1).filter((k) => k !== winner), [], `only the winner's chains: ${chainKeys.join(', ')}`);
      } finally {
        client.disconnect();
      }
    } finally {
      await Promise.all(starts.map((service) => service.stop()));
    }
  });

  it('adopts a DATA_DIR written before epochs existed from its files, and refuses a change there too', async () => {
    const dataDir = await tempDir();
    const file = await write(dataDir, {});
    await verdictSeqs(file, 2, 20);
    await file.stop();
    rmSync(join(dataDir, 'epoch.json'));

    const refused = await start(dataDir, { REDIS_URL: onRedis.REDIS_URL() }, true);
    assert.equal(refused.base, '', `a redis chain must not start beside an older file chain:\n${refused.output()}`);
    assert.match(refused.output(), /was written with AUDIT_STORE=file AUDIT_PARTITIONS=1 STORE=lmdb \(epoch [0-9a-f-]{36}\), and this start asks for AUDIT_STORE=redis AUDIT_PARTITIONS=1 STORE=redis/);
  });
});
