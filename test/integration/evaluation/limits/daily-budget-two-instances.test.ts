// One wallet's daily budget spent through two service processes on one real Redis: no remainder is spent twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { freePort, startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const JWT_SECRET = 'daily-budget-two-instances-secret-of-32-characters';
const AUDIT_SIGNING_KEY = Buffer.alloc(32, 7).toString('base64');
const tempDir = useTempDirs('guardrail-budget-');
let redis: RedisServer;
let a: ServiceProcess;
let b: ServiceProcess;

async function instance(): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: String(await freePort()), DATA_DIR: await tempDir(), REDIS_URL: redis.url, AUDIT_STORE: 'redis', JWT_SECRET, AUDIT_SIGNING_KEY,
    WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, RPC_URL: undefined, RATE_LIMITS: 'off',
  });
}

before(async () => {
  redis = await startRedisServer();
  a = await instance();
  b = await instance();
});
after(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
});

describe('a daily budget shared by two instances (ARCHITECTURE.md "Fleet limits")', () => {
  it('30 concurrent trades across both: exactly the 10 that fit are allowed or warned, the rest denied by POLICY_DAILY_BUDGET', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const nonce = await getJson(`${a.base}/api/v1/auth/nonce?address=${signer.address}`);
    const login = await postJson(`${a.base}/api/v1/auth/wallet`, { address: signer.address, signature: await signer.signMessage({ message: nonce.json.message }) });
    assert.equal(login.status, 200, login.text);
    // Set on A, enforced by B: the policy is in Redis. Ten trades of 350.25 USD (1 TSLA at its default price) fit.
    const set = await postJson(`${a.base}/api/v1/config`, { blocked_assets: [], limits: { daily_notional_usd: 3502.5 } }, { authorization: `Bearer ${login.json.access_token}` });
    assert.equal(set.status, 200, set.text);
    const trade = sampleTrade({ wallet: signer.address, amount: 1 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => postJson(`${(i % 2 ? a : b).base}/api/v1/analyze/free`, trade)));
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const passed = answers.filter((answer) => answer.json.decision !== 'deny');
    const denied = answers.filter((answer) => answer.json.decision === 'deny');
    assert.equal(passed.length, 10);
    for (const answer of denied) assert.match(answer.json.reasons[0], /^POLICY_DAILY_BUDGET: 350.25 USD would bring today's use to 3,852.75 USD/);
    // Both instances answered some of the ten: the count is shared, not each instance's own.
    const byInstance = new Set(passed.map((answer) => answers.indexOf(answer) % 2));
    assert.equal(byInstance.size, 2);
    // The use the store holds is the ten allowed notionals to the cent.
    const day = new Date(passed[0]!.json.timestamp * 1000).toISOString().slice(0, 10);
    const client = new Redis(redis.url);
    try {
      assert.equal(await client.get(`tg:budget:${signer.address.toLowerCase()}:${day}`), '350250');
    } finally {
      client.disconnect();
    }
  });
});
