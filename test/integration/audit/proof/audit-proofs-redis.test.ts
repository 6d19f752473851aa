// Checkpoints and facts on the Redis audit store: two instances on one real Redis share one tree, one
// key and every checkpoint; an instance holding another key refuses to start; every verdict replays.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CheckpointSigner, checkCheckpoint } from '../../../../src/audit/proof/checkpoint.js';
import { checkConsistency, checkInclusion } from '../../../../src/audit/proof/proof-check.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';
import { EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
let redis: RedisServer;
let a: TestService;
let b: TestService;

before(async () => {
  redis = await startRedisServer();
  const env = { REDIS_URL: redis.url, AUDIT_STORE: 'redis', RATE_LIMITS: 'off', AUDIT_CHECKPOINT_RECORDS: '4', AUDIT_CHECKPOINT_SECONDS: '0', AUDIT_SIGNING_KEY: KEY };
  a = await startTestService(env);
  b = await startTestService(env);
});
after(async () => {
  await a.stop();
  await b.stop();
  await redis.stop();
});

const evaluate = async (target: TestService, n: number) => {
  const answer = await postJson(`${target.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(0xb00 + n).toString(16).padStart(40, '0')}`, amount: 1 }));
  assert.equal(answer.status, 200, answer.text);
  return answer.json.audit_seq as number;
};

describe('checkpoints on a shared Redis chain', () => {
  it('are shared: records from both instances in one tree, proven by either', async () => {
    for (let n = 1; n <= 12; n++) await evaluate(n % 2 ? a : b, n);
    const key = new CheckpointSigner(Buffer.from(KEY, 'base64')).published;
    const latest = await pollUntil('checkpoint 12', () => getJson(`${a.base}/api/v1/audit/checkpoint`), (r) => r.json.tree_size === 12);
    assert.equal(checkCheckpoint(latest.json, key), null);
    assert.deepEqual((await getJson(`${b.base}/api/v1/audit/checkpoint`)).json, latest.json, 'one latest checkpoint for both');
    for (const [instance, seq] of [[a, 2], [b, 3], [a, 12]] as const) {
      const proof = await pollUntil(`proof ${seq}`, () => getJson(`${instance.base}/api/v1/audit/proof/${seq}`), (r) => r.status === 200);
      assert.equal(checkInclusion(proof.json.leaf_hash, seq - 1, 12, proof.json.audit_path, latest.json.root_hash), null);
    }
    const earlier = (await getJson(`${b.base}/api/v1/audit/checkpoint?tree_size=8`)).json;
    const consistency = (await getJson(`${b.base}/api/v1/audit/consistency?first=8&second=12`)).json;
    assert.equal(checkConsistency(8, 12, earlier.root_hash, latest.json.root_hash, consistency.proof), null);
  });

  it('keep every record\'s facts in Redis, so either instance replays what both wrote', async () => {
    let out = '';
    const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
    const status = await runAuditReplay([b.base, '--from', '1', '--to', '12', '--json'], io);
    assert.equal(status, EXIT_REPRODUCED, out);
    assert.deepEqual([JSON.parse(out).records, JSON.parse(out).reproduced], [12, 12]);
  });

  it('refuse an instance that would sign with another key', async () => {
    const other = Buffer.alloc(32, 10).toString('base64');
    await assert.rejects(
      startTestService({ REDIS_URL: redis.url, AUDIT_STORE: 'redis', AUDIT_SIGNING_KEY: other }),
      /signed with key [0-9a-f]{16}, this instance holds [0-9a-f]{16}: give every instance the same AUDIT_SIGNING_KEY/,
    );
  });
});
