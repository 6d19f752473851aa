// Issue 11 defects 4 and 6: asking for a nonce cancels nobody's sign-in, and a refusal names the check that failed.
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ManualClock } from '../../support/manual-clock.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { getJson, postJson, SAMPLE_REGISTRY, startTestService, type TestService } from '../../support/service.js';

// A Tuesday during the NYSE session; the clock moves only when a test moves it.
const clock = new ManualClock();
const now = clock.now;

const NO_PENDING = 'No sign-in message is pending for this address; request a nonce first';
const MISMATCH = 'Signature does not match the pending sign-in message for this address';

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(() => redis.stop());

/** A throwaway wallet per test, so no test sees another's pending messages. */
let walletSeq = 0;
const freshWallet = (): PrivateKeyAccount => privateKeyToAccount(keccak256(toHex(`auth-nonces wallet ${++walletSeq}`)));

async function nonce(base: string, address: string): Promise<string> {
  const response = await getJson(`${base}/api/v1/auth/nonce?address=${address}`);
  assert.equal(response.status, 200, response.text);
  return response.json.message;
}

async function login(base: string, wallet: PrivateKeyAccount, message: string) {
  const signature = await wallet.signMessage({ message });
  return postJson(`${base}/api/v1/auth/wallet`, { address: wallet.address, signature });
}

function assertRefused(response: { status: number; json: any; headers: Headers }, detail: string): void {
  assert.deepEqual([response.status, response.json], [401, { detail, code: 'sign_in_refused' }]);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer');
}

function assertSignedIn(response: { status: number; json: any; text: string }): void {
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.json).sort(), ['access_token', 'expires_in_seconds', 'preview_mode']);
}

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`pending sign-in messages (${storeKind} store)`, () => {
    let running: TestService;
    let base: string;
    before(async () => {
      const env: Record<string, string> = { RATE_LIMITS: 'off', ...(storeKind === 'redis' ? { REDIS_URL: redis.url, AUDIT_STORE: 'file' } : {}) };
      running = await startTestService(env, undefined, { now });
      base = running.base;
    });
    after(() => running.stop());

    it('asking again for the same address cancels no message already handed out', async () => {
      const victim = freshWallet();
      const handedOut = await nonce(base, victim.address);
      // Anyone may ask for a nonce for any address: four more requests for the victim's.
      for (let i = 0; i < 4; i++) await nonce(base, victim.address);
      assertSignedIn(await login(base, victim, handedOut));
    });

    it('keeps the newest five: a sixth request drops the oldest', async () => {
      const wallet = freshWallet();
      const messages: string[] = [];
      for (let i = 0; i < 6; i++) messages.push(await nonce(base, wallet.address));
      assertRefused(await login(base, wallet, messages[0]), MISMATCH);
      for (const message of messages.slice(1)) assertSignedIn(await login(base, wallet, message));
      assertRefused(await login(base, wallet, messages[5]), NO_PENDING);
    });

    it('uses each message once, leaving the others pending', async () => {
      const wallet = freshWallet();
      const [first, second] = [await nonce(base, wallet.address), await nonce(base, wallet.address)];
      assertSignedIn(await login(base, wallet, second));
      assertRefused(await login(base, wallet, second), MISMATCH);
      assertSignedIn(await login(base, wallet, first));
      assertRefused(await login(base, wallet, first), NO_PENDING);
    });

    it('says a lone message expired when it is signed after its 5 minutes', async () => {
      const wallet = freshWallet();
      const late = await nonce(base, wallet.address);
      clock.advance(6 * 60 * 1000);
      assertRefused(await login(base, wallet, late), 'The sign-in message has expired; request a new nonce');
    });

    it('says a message expired when it did, and drops it when a new one is asked for', async () => {
      const wallet = freshWallet();
      const stale = await nonce(base, wallet.address);
      // A later request keeps the address's list (and the store key's 5 min TTL, which runs on the
      // service clock in memory) alive past the first message's own expiry, so it is still held to say so.
      clock.advance(4 * 60 * 1000);
      await nonce(base, wallet.address);
      clock.advance(60 * 1000);
      assertRefused(await login(base, wallet, stale), 'The sign-in message has expired; request a new nonce');
      const fresh = await nonce(base, wallet.address);
      assertRefused(await login(base, wallet, stale), MISMATCH);
      assertSignedIn(await login(base, wallet, fresh));
    });
  });
}

describe('a refused sign-in names the check that failed (instances sharing one Redis)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'auth-nonces-'));
  let first: TestService;
  let otherDomain: TestService;
  let otherChain: TestService;
  before(async () => {
    const chainOne = join(dir, 'registry-chain-1.json');
    writeFileSync(chainOne, JSON.stringify({ ...JSON.parse(readFileSync(SAMPLE_REGISTRY, 'utf8')), chain_id: 1 }));
    const shared = { RATE_LIMITS: 'off', REDIS_URL: redis.url, AUDIT_STORE: 'file' };
    first = await startTestService({ ...shared, PUBLIC_BASE_URL: 'http://guard-a.example:8080' }, undefined, { now });
    otherDomain = await startTestService({ ...shared, PUBLIC_BASE_URL: 'http://guard-b.example:8080' }, undefined, { now });
    otherChain = await startTestService({ ...shared, PUBLIC_BASE_URL: 'http://guard-a.example:8080', REGISTRY_FILE: chainOne }, undefined, { now });
  });
  after(async () => {
    await Promise.all([first.stop(), otherDomain.stop(), otherChain.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a message for another domain is refused as such, not as expired, and stays pending', async () => {
    const wallet = freshWallet();
    const message = await nonce(first.base, wallet.address);
    assertRefused(
      await login(otherDomain.base, wallet, message),
      'The sign-in message is for the domain guard-a.example:8080, not guard-b.example:8080; request a nonce from this service',
    );
    assertRefused(
      await login(otherChain.base, wallet, message),
      'The sign-in message is for chain 4663, not 1; request a nonce from this service',
    );
    assertSignedIn(await login(first.base, wallet, message));
  });

  it('the methodology states how many messages wait and that a failed sign-in spends none', async () => {
    const text = (await getJson(`${first.base}/.well-known/methodology.md`)).text;
    assert.match(text, /Up to 5 messages wait per address at once\..*asking again never invalidates a message already handed out; past 5 the oldest is dropped/);
    assert.match(text, /a refusal \(HTTP 401\) names the check that failed: no message pending, signature, domain, chain, address, nonce or expiry/);
    assert.match(text, /leaves it pending, and the same signature may be sent again/);
  });
});
