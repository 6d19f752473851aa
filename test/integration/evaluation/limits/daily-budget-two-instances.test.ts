// One wallet's daily budget spent through two service processes on one real Redis: no remainder is spent twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getJson, postJson, sampleTrade } from '../../../support/service.js';
import { useTwoInstancesOnRedis } from '../../../support/two-instances.js';

const pair = useTwoInstancesOnRedis('budget');

describe('a daily budget shared by two instances (ARCHITECTURE.md "Fleet limits")', () => {
  it('one trade on each, then 28 concurrent across both: exactly the 10 that fit are allowed or warned, the rest denied by POLICY_DAILY_BUDGET', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const nonce = await getJson(`${pair.a.base}/api/v1/auth/nonce?address=${signer.address}`);
    const login = await postJson(`${pair.a.base}/api/v1/auth/wallet`, { address: signer.address, signature: await signer.signMessage({ message: nonce.json.message }) });
    assert.equal(login.status, 200, login.text);
    // Set on A, enforced by B: the policy is in Redis. Ten trades of 350.25 USD (1 TSLA at its default price) fit.
    const set = await postJson(`${pair.a.base}/api/v1/config`, { blocked_assets: [], limits: { daily_notional_usd: 3502.5 } }, { authorization: `Bearer ${login.json.access_token}` });
    assert.equal(set.status, 200, set.text);
    const trade = sampleTrade({ wallet: signer.address, amount: 1 });
    // Each instance spends first, so both have a share of the ten: left to the race, one instance could take all ten
    // before the other's first request reached Redis (it did, on a loaded machine).
    for (const instance of [pair.a, pair.b]) {
      const first = await postJson(`${instance.base}/api/v1/analyze/free`, trade);
      assert.equal(first.status, 200, first.text);
      assert.notEqual(first.json.decision, 'deny', first.text);
    }
    const answers = await Promise.all(Array.from({ length: 28 }, (_, i) => postJson(`${(i % 2 ? pair.a : pair.b).base}/api/v1/analyze/free`, trade)));
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const passed = answers.filter((answer) => answer.json.decision !== 'deny');
    const denied = answers.filter((answer) => answer.json.decision === 'deny');
    // Eight more fit, counted across both: with a count of its own, each instance would have allowed nine of its fourteen.
    assert.equal(passed.length, 8);
    for (const answer of denied) assert.match(answer.json.reasons[0], /^POLICY_DAILY_BUDGET: 350.25 USD would bring today's use to 3,852.75 USD/);
    // The use the store holds is the ten allowed notionals to the cent.
    const day = new Date(passed[0]!.json.timestamp * 1000).toISOString().slice(0, 10);
    const client = new Redis(pair.redis.url);
    try {
      assert.equal(await client.get(`tg:budget:${signer.address.toLowerCase()}:${day}`), '350250');
    } finally {
      client.disconnect();
    }
  });
});
