// Two real instances on one real Redis: one audit chain, one per-wallet window, revocations seen by both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { getJson, postJson, sampleTrade, send, startTestService, type TestService } from '../support/service.js';

const JWT_SECRET = 'two-instances-test-secret-of-at-least-32-characters';
const AUDIT_SIGNING_KEY = Buffer.alloc(32, 5).toString('base64');
let redis: RedisServer;
let a: TestService;
let b: TestService;

before(async () => {
  redis = await startRedisServer();
  // Shared as a deployment shares them: the token secret and the checkpoint signing key.
  const env = { REDIS_URL: redis.url, AUDIT_STORE: 'redis', JWT_SECRET, AUDIT_SIGNING_KEY, RATE_LIMIT_IP_FREE: '1000', RATE_LIMIT_IP_AUTH: '1000' };
  a = await startTestService(env);
  b = await startTestService(env);
});
after(async () => {
  await a.stop();
  await b.stop();
  await redis.stop();
});

const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('two instances sharing Redis', () => {
  it('keep one linear chain: interleaved verdicts get consecutive seqs and verify as one', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postJson(`${(i % 2 ? a : b).base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(0x100 + i), amount: 1 }))),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const seqs = answers.map((answer) => answer.json.audit_seq as number).sort((x, y) => x - y);
    assert.deepEqual(seqs, Array.from({ length: 40 }, (_, i) => seqs[0]! + i), 'no seq used twice, none skipped');
    for (const instance of [a, b]) {
      const verified = await getJson(`${instance.base}/api/v1/audit/verify?limit=1000`);
      assert.equal(verified.json.healthy, true);
      assert.equal(verified.json.total, seqs[seqs.length - 1]);
    }
  });

  it('share one per-wallet window: 30 concurrent evaluations across both, exactly 10 allowed', async () => {
    const trade = sampleTrade({ wallet: wallet(0xabc), amount: 1 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => postJson(`${(i % 2 ? a : b).base}/api/v1/analyze/free`, trade)));
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 200).length, 10);
    assert.equal(statuses.filter((status) => status === 429).length, 20);
    for (const refused of answers.filter((answer) => answer.status === 429)) assert.equal(refused.json.code, 'rate_limited');
  });

  it('honour each other\'s revocations at once', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const nonce = await getJson(`${a.base}/api/v1/auth/nonce?address=${signer.address}`);
    const signature = await signer.signMessage({ message: nonce.json.message });
    // Signed in on B with the message A issued: the pending messages live in the shared store too.
    const login = await postJson(`${b.base}/api/v1/auth/wallet`, { address: signer.address, signature });
    assert.equal(login.status, 200, login.text);
    const bearer = { authorization: `Bearer ${login.json.access_token}` };
    assert.equal((await getJson(`${a.base}/api/v1/config`, bearer)).status, 200);
    assert.deepEqual((await send('POST', `${a.base}/api/v1/auth/revoke`, undefined, bearer)).json, { revoked: true });
    const refused = await getJson(`${b.base}/api/v1/config`, bearer);
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.json, { detail: 'Token has been revoked', code: 'token_revoked' });
  });
});
