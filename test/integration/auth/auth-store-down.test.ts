// Issue 11 defect 3 (store): while Redis is down, sign-in and every bearer route answer 503 store_unavailable, never 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { getJson, postJson, sampleTrade, send, startTestService, type TestService } from '../../support/service.js';

// A Tuesday during the NYSE session, fixed: nothing here depends on time passing.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const STORE_DOWN = { code: 'store_unavailable' };

let redis: RedisServer;
/** Default rate limits: the per-IP window is in the store too. */
let metered: TestService;
/** RATE_LIMITS=off, so the sign-in and bearer code itself meets the dead store. */
let unmetered: TestService;

before(async () => {
  redis = await startRedisServer();
  const shared = { REDIS_URL: redis.url, AUDIT_STORE: 'file' };
  metered = await startTestService(shared, undefined, { now: () => OPEN_MARKET });
  unmetered = await startTestService({ ...shared, RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
});
after(async () => {
  await Promise.all([metered.stop(), unmetered.stop()]);
  await redis.stop();
});

let walletSeq = 0;
const freshWallet = (): PrivateKeyAccount => privateKeyToAccount(keccak256(toHex(`auth-store-down wallet ${++walletSeq}`)));

async function signedMessage(base: string, wallet: PrivateKeyAccount) {
  const response = await getJson(`${base}/api/v1/auth/nonce?address=${wallet.address}`);
  assert.equal(response.status, 200, response.text);
  return { address: wallet.address, signature: await wallet.signMessage({ message: response.json.message }) };
}

async function tokenFor(base: string, wallet: PrivateKeyAccount): Promise<string> {
  const response = await postJson(`${base}/api/v1/auth/wallet`, await signedMessage(base, wallet));
  assert.equal(response.status, 200, response.text);
  return response.json.access_token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('a Redis that stops answering', () => {
  it('a sign-in that failed on a frozen store leaves its message usable once the store answers', async () => {
    const wallet = freshWallet();
    const login = await signedMessage(unmetered.base, wallet);
    redis.pause();
    let frozen;
    try {
      frozen = await postJson(`${unmetered.base}/api/v1/auth/wallet`, login);
    } finally {
      redis.resume();
    }
    assert.deepEqual([frozen.status, frozen.json], [503, { detail: 'Sign-in did not complete: the cache store did not answer', ...STORE_DOWN }]);
    const retried = await postJson(`${unmetered.base}/api/v1/auth/wallet`, login);
    assert.equal(retried.status, 200, retried.text);
  });

  it('answers 503 with a code on every sign-in and bearer route once Redis is gone', async () => {
    const wallet = freshWallet();
    const token = await tokenFor(unmetered.base, wallet);
    const pendingLogin = await signedMessage(unmetered.base, freshWallet());
    await redis.stop();

    const u = (path: string) => `${unmetered.base}${path}`;
    const answers = {
      nonce: await getJson(u(`/api/v1/auth/nonce?address=${wallet.address}`)),
      login: await postJson(u('/api/v1/auth/wallet'), pendingLogin),
      trade: await postJson(u('/api/v1/analyze/trade'), sampleTrade({ wallet: wallet.address, amount: 1 }), bearer(token)),
      readConfig: await getJson(u('/api/v1/config'), bearer(token)),
      writeConfig: await postJson(u('/api/v1/config'), { blocked_assets: ['TSLA'] }, bearer(token)),
      revoke: await send('POST', u('/api/v1/auth/revoke'), undefined, bearer(token)),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, [answer.status, answer.json]]));
    assert.deepEqual(statuses, {
      nonce: [503, { detail: 'No sign-in message was issued: the cache store did not answer', ...STORE_DOWN }],
      login: [503, { detail: 'Sign-in did not complete: the cache store did not answer', ...STORE_DOWN }],
      trade: [503, { detail: 'The trade was not evaluated: the cache store did not answer', ...STORE_DOWN }],
      readConfig: [503, { detail: 'Policy unavailable: the cache store did not answer', ...STORE_DOWN }],
      writeConfig: [503, { detail: 'Policy unavailable: the cache store did not answer', ...STORE_DOWN }],
      // A valid token the store cannot record as revoked is never reported as `revoked: false`.
      revoke: [503, { detail: 'The token was not revoked: the cache store did not answer', ...STORE_DOWN }],
    });
    // Without a valid token nothing needs the store: still the spec's 200.
    assert.deepEqual((await send('POST', u('/api/v1/auth/revoke'))).json, { revoked: false });
    assert.ok(unmetered.logs.some((line) => line.startsWith('unavailable: POST /api/v1/auth/revoke: store_unavailable: StoreUnavailableError: cache store get failed: ')), unmetered.logs.join('\n'));

    // With rate limits on, the per-IP window answers first, with the same code.
    const limited = await getJson(`${metered.base}/api/v1/auth/nonce?address=${wallet.address}`);
    assert.deepEqual([limited.status, limited.json], [503, { detail: 'rate-limit store unavailable; refusing to serve unmetered requests', ...STORE_DOWN }]);
  });
});
