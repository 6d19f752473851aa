// AUDIT_PARTITIONS=3 on a real redis-server, two service instances: wallets spread over three chains, each chain gap-free
// and verifying, one signed checkpoint over all heads, offline proofs, audit:verify and audit:replay across chains, and
// a tampered record found and named by its chain.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { CheckpointSigner } from '../../../../src/audit/proof/checkpoint.js';
import { leafHash } from '../../../../src/audit/proof/merkle.js';
import { checkPartitionedCheckpoint, checkPartitionedInclusion, type PartitionedCheckpoint } from '../../../../src/audit/proof/partition-root.js';
import { partitionOf } from '../../../../src/audit/record/partition.js';
import { parseLine } from '../../../../src/audit/record/record.js';
import { chainPrefix } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { loadConfig } from '../../../../src/config.js';
import { EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const K = 3;
/** Both instances' clock: checkpoints come due by time when the test moves it. */
const clock = new ManualClock();
const tempDir = useTempDirs('guardrail-since-');
const WALLETS = Array.from({ length: 24 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`);
let redis: RedisServer;
let a: TestService;
let b: TestService;
/** audit_seq of every verdict, by chain. */
const seqsByChain: number[][] = [[], [], []];

before(async () => {
  redis = await startRedisServer();
  const env = {
    REDIS_URL: redis.url, AUDIT_STORE: 'redis', AUDIT_PARTITIONS: String(K), RATE_LIMITS: 'off',
    AUDIT_CHECKPOINT_RECORDS: '5', AUDIT_CHECKPOINT_SECONDS: '10', AUDIT_SIGNING_KEY: KEY,
  };
  a = await startTestService(env, undefined, { now: clock.now });
  b = await startTestService(env, undefined, { now: clock.now });
});
after(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
});

function cli(run: typeof runAuditVerify, argv: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
  return run(argv, io).then((status) => ({ status, out }));
}

const exportOf = async (base: string, chain: number) => (await fetch(`${base}/api/v1/audit/export?chain=${chain}&limit=10000`)).text();

describe('partitioned audit chains (AUDIT_PARTITIONS=3)', () => {
  it('spread wallets over the chains, each verdict naming the chain its wallet hashes to, from two instances at once', async () => {
    // Three rounds over 24 wallets, both instances at once: appends to one chain interleave across instances.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(WALLETS.map((wallet, i) => postJson(`${(i + round) % 2 ? a.base : b.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }))));
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.json.audit_chain, partitionOf(WALLETS[i], K), `wallet ${WALLETS[i]}`);
        seqsByChain[answer.json.audit_chain as number].push(answer.json.audit_seq as number);
      }
    }
    assert.ok(seqsByChain.every((seqs) => seqs.length > 0), `every chain took records: ${seqsByChain.map((s) => s.length).join(', ')}`);
  });

  it('keep each chain gap-free and linked, and every record of a wallet in its one chain', async () => {
    for (let chain = 0; chain < K; chain++) {
      const lines = (await exportOf(a.base, chain)).split('\n').filter(Boolean).map((line) => parseLine(line));
      assert.deepEqual(lines.map((r) => r.seq), Array.from({ length: seqsByChain[chain].length }, (_, i) => i + 1), `chain ${chain} seqs`);
      assert.deepEqual([...seqsByChain[chain]].sort((x, y) => x - y), lines.map((r) => r.seq), `chain ${chain}: each seq issued once`);
      lines.forEach((record, i) => assert.equal(record.prev_hash, i === 0 ? '0'.repeat(64) : lines[i - 1].hash));
      assert.ok(lines.every((record) => partitionOf(record.wallet, K) === chain));
    }
    const listing = await getJson(`${b.base}/api/v1/audit/wallet/${WALLETS[5]}`);
    assert.equal(listing.json.count, 3);
    assert.ok(listing.json.records.every((r: { chain: number }) => r.chain === partitionOf(WALLETS[5], K)));
    const global = await getJson(`${a.base}/api/v1/audit/global?limit=1000`);
    assert.equal(global.json.count, WALLETS.length * 3);
  });

  it('verify globally over every chain', async () => {
    const verify = await getJson(`${a.base}/api/v1/audit/verify?limit=1000`);
    assert.equal(verify.status, 200, verify.text);
    assert.deepEqual(
      { healthy: verify.json.healthy, total: verify.json.total, tampered: verify.json.tampered, chains: verify.json.chains.map((c: { total: number }) => c.total) },
      { healthy: true, total: WALLETS.length * 3, tampered: 0, chains: seqsByChain.map((seqs) => seqs.length) },
    );
    const wallet = await getJson(`${b.base}/api/v1/audit/verify/${WALLETS[7]}`);
    assert.deepEqual([wallet.json.healthy, wallet.json.total, wallet.json.chain], [true, 3, partitionOf(WALLETS[7], K)]);
  });

  it('sign one checkpoint whose root binds every chain\'s head', async () => {
    const key = new CheckpointSigner(Buffer.from(KEY, 'base64')).published;
    const total = WALLETS.length * 3;
    // The last records, fewer than AUDIT_CHECKPOINT_RECORDS since the last checkpoint, come due by time.
    clock.advance(10_000);
    const latest = await pollUntil('checkpoint over every record', () => getJson(`${a.base}/api/v1/audit/checkpoint`), (r) => r.json?.tree_size === total);
    const checkpoint = latest.json as PartitionedCheckpoint;
    assert.equal(checkPartitionedCheckpoint(checkpoint, key), null);
    for (let chain = 0; chain < K; chain++) {
      const head = await fetch(`${a.base}/api/v1/audit/export?chain=${chain}&limit=1`);
      assert.deepEqual(
        [checkpoint.chains[chain].tree_size, checkpoint.chains[chain].last_hash],
        [Number(head.headers.get('x-audit-head-seq')), head.headers.get('x-audit-head-hash')],
      );
    }
    const altered = { ...checkpoint, chains: checkpoint.chains.map((head, p) => (p === 1 ? { ...head, last_hash: 'f'.repeat(64) } : head)) };
    assert.equal(checkPartitionedCheckpoint(altered, key), 'root_hash is not the root over the chains\' heads');
  });

  it('prove a record of chain 2 offline: its path in the chain, the chain under the signed root', async () => {
    const seq = seqsByChain[2][0];
    const proof = await pollUntil('proof', () => getJson(`${b.base}/api/v1/audit/proof/${seq}?chain=2`), (r) => r.status === 200);
    const [line] = (await exportOf(a.base, 2)).split('\n').slice(seq - 1, seq);
    const leaf = leafHash(parseLine(line).hash).toString('hex');
    assert.equal(checkPartitionedInclusion(leaf, seq, proof.json, proof.json.checkpoint), null);
    assert.equal(checkPartitionedInclusion(leaf, seq, { ...proof.json, chain: 1 }, proof.json.checkpoint) !== null, true);
    const proven = await cli(runAuditVerify, [a.base, '--prove', String(seq), '--chain', '2', '--json']);
    assert.equal(proven.status, EXIT_HEALTHY, proven.out);
    assert.deepEqual([JSON.parse(proven.out).chain, JSON.parse(proven.out).hash], [2, parseLine(line).hash]);
    const missing = await getJson(`${a.base}/api/v1/audit/proof/${seq}`);
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json.detail[0].loc, ['query', 'chain']);
  });

  it('verify and replay every chain from the command line', async () => {
    const verified = await cli(runAuditVerify, [a.base, '--json']);
    assert.equal(verified.status, EXIT_HEALTHY, verified.out);
    const report = JSON.parse(verified.out);
    assert.deepEqual([report.partitions, report.healthy, report.chains.map((c: { total: number }) => c.total)], [K, true, seqsByChain.map((s) => s.length)]);
    const replayed = await cli(runAuditReplay, [b.base, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([JSON.parse(replayed.out).records, JSON.parse(replayed.out).reproduced], [WALLETS.length * 3, WALLETS.length * 3]);
  });

  it('extend a trusted checkpoint chain by chain from the command line (--since)', async () => {
    const saved = join(await tempDir(), 'trusted.json');
    const first = await cli(runAuditVerify, [a.base, '--since', 'genesis', '--save', saved, '--json']);
    assert.equal(first.status, EXIT_HEALTHY, first.out);
    const total = WALLETS.length * 3;
    assert.deepEqual([JSON.parse(first.out).records, JSON.parse(first.out).to.tree_size], [total, total]);
    // Three more verdicts, one in each chain, signed when the next checkpoint comes due by time.
    const added = [0, 1, 2].map((chain) => WALLETS.find((w) => partitionOf(w, K) === chain)!);
    for (const wallet of added) assert.equal((await postJson(`${b.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }))).status, 200);
    clock.advance(10_000);
    await pollUntil('checkpoint over the added records', () => getJson(`${a.base}/api/v1/audit/checkpoint`), (r) => r.json?.tree_size === total + 3);
    const next = await cli(runAuditVerify, [b.base, '--since', saved, '--json']);
    assert.equal(next.status, EXIT_HEALTHY, next.out);
    const report = JSON.parse(next.out);
    assert.deepEqual([report.from.tree_size, report.to.tree_size, report.records], [total, total + 3, 3]);
    assert.deepEqual(report.chains.map((c: { from: number; to: number }) => c.to - c.from), [1, 1, 1]);
    // A trusted checkpoint edited by hand is refused: its signature no longer holds.
    const trusted = JSON.parse(await readFile(saved, 'utf8'));
    trusted.chains[1].tree_size -= 1;
    trusted.tree_size -= 1;
    await writeFile(saved, JSON.stringify(trusted));
    const edited = await cli(runAuditVerify, [a.base, '--since', saved, '--json']);
    assert.equal(edited.status, EXIT_TAMPERED, edited.out);
    assert.match(JSON.parse(edited.out).reason, /^the trusted checkpoint: /);
  });

  it('find a record edited in one chain and name that chain', async () => {
    const client = new Redis(redis.url);
    try {
      const stored = (await client.hget(`${chainPrefix(1, K)}records`, '2'))!;
      await client.hset(`${chainPrefix(1, K)}records`, '2', stored.replace('"decision":"', '"decision":"x'));
    } finally {
      client.disconnect();
    }
    const verify = await getJson(`${a.base}/api/v1/audit/verify?limit=1000`);
    assert.deepEqual(
      [verify.json.healthy, verify.json.first_broken_chain, verify.json.first_broken_seq, verify.json.chains.map((c: { healthy: boolean }) => c.healthy)],
      [false, 1, 2, [true, false, true]],
    );
    assert.deepEqual(verify.json.records[0], { chain: 1, seq: 2, hash: verify.json.records[0].hash, problem: 'hash_mismatch' });
    const verified = await cli(runAuditVerify, [a.base]);
    assert.equal(verified.status, EXIT_TAMPERED, verified.out);
    assert.match(verified.out, /NOT healthy: chain 1\n/);
  });

  it('prove at once, from either instance, a record the other one just appended and signed', async () => {
    const wallet = WALLETS.find((w) => partitionOf(w, K) === 2)!;
    clock.advance(10_000);
    const answer = await postJson(`${b.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));
    assert.equal(answer.status, 200, answer.text);
    const seq = answer.json.audit_seq as number;
    await pollUntil('checkpoint over the new record', () => getJson(`${b.base}/api/v1/audit/checkpoint`), (r) => r.json?.chains?.[2]?.tree_size === seq);
    // Instance a has not read the record yet (it follows the chains once a second): it reads it before answering.
    const proof = await getJson(`${a.base}/api/v1/audit/proof/${seq}?chain=2`);
    assert.equal(proof.status, 200, proof.text);
    assert.equal(proof.json.leaf_hash, leafHash(answer.json.audit_hash as string).toString('hex'));
  });
});

describe('AUDIT_PARTITIONS at start', () => {
  it('is refused without the Redis audit store, and above the maximum', () => {
    assert.throws(() => loadConfig({ AUDIT_PARTITIONS: '3' }), /AUDIT_PARTITIONS=3: partitioned audit chains need AUDIT_STORE=redis/);
    assert.throws(() => loadConfig({ AUDIT_PARTITIONS: '17', REDIS_URL: 'redis://127.0.0.1:1' }), /AUDIT_PARTITIONS/);
    assert.equal(loadConfig({}).auditPartitions, 1);
  });
});
