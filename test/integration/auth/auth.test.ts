// Wallet sign-in, tiers from service-token holdings, policy, and the security cases, over real HTTP on the devnet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage } from 'viem/siwe';
import type { DemoWallet } from '../../../src/tools/devnet/devnet.js';
import { getJson, postJson, send, startTestService, type TestService } from '../../support/service.js';

// A Tuesday during the NYSE session; the clock moves only when a test moves it.
let clock = Date.UTC(2026, 10, 17, 15, 0, 0);
let running: TestService;
let wallets: DemoWallet[];

before(async () => {
  // REGISTRY_FILE unset: the embedded devnet is the chain and its deployment the registry.
  running = await startTestService({ REGISTRY_FILE: '' }, undefined, { now: () => clock });
  wallets = running.service.chain.devnet?.wallets ?? [];
  assert.equal(wallets.length >= 4, true, 'the devnet has demo wallets');
});
after(() => running.stop());

const byTokens = (tokens: number) => wallets.find((wallet) => wallet.serviceTokens === tokens) as DemoWallet;
const url = (path: string) => `${running.base}${path}`;

async function nonce(address: string): Promise<string> {
  const response = await getJson(url(`/api/v1/auth/nonce?address=${address}`));
  assert.equal(response.status, 200, response.text);
  return response.json.message;
}

async function signIn(wallet: DemoWallet) {
  const message = await nonce(wallet.address);
  const signature = await privateKeyToAccount(wallet.privateKey).signMessage({ message });
  return postJson(url('/api/v1/auth/wallet'), { address: wallet.address, signature });
}

async function tokenFor(wallet: DemoWallet): Promise<string> {
  const response = await signIn(wallet);
  assert.equal(response.status, 200, response.text);
  return response.json.access_token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function trade(wallet: string, extra: Record<string, unknown> = {}) {
  const tsla = running.service.registry.bySymbol('TSLA');
  return { wallet, asset: 'TSLA', contract_address: tsla?.contract_address, side: 'buy', amount: 1, ...extra };
}

describe('sign-in flow', () => {
  it('issues an EIP-4361 message for chain 4663 with a fresh nonce valid five minutes', async () => {
    const wallet = byTokens(1000);
    const fields = parseSiweMessage(await nonce(wallet.address));
    assert.equal(fields.address, wallet.address);
    assert.equal(fields.chainId, 4663);
    assert.equal(fields.version, '1');
    assert.equal(fields.expirationTime!.getTime() - fields.issuedAt!.getTime(), 300_000);
    const again = parseSiweMessage(await nonce(wallet.address));
    assert.notEqual(again.nonce, fields.nonce);
  });

  it('returns a bearer token and the preview flag', async () => {
    const response = await signIn(byTokens(1000));
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.json).sort(), ['access_token', 'expires_in_seconds', 'preview_mode']);
    assert.equal(response.json.expires_in_seconds, 3600);
    assert.equal(response.json.preview_mode, false);
    assert.equal((await signIn(byTokens(0))).json.preview_mode, true);
  });

  it('puts each demo wallet at the tier its holdings earn', async () => {
    const expected: [number, number, number][] = [[0, 1, 5000], [1000, 1, 5000], [2500, 2, 25000], [5000, 3, 100000]];
    for (const [tokens, tier, ceiling] of expected) {
      const wallet = byTokens(tokens);
      const token = await tokenFor(wallet);
      const config = await getJson(url('/api/v1/config'), bearer(token));
      assert.deepEqual(config.json, { wallet: wallet.address.toLowerCase(), max_trade_usd: ceiling, blocked_assets: [], limits: null, editable: true });
      const verdict = await postJson(url('/api/v1/analyze/trade'), trade(wallet.address), bearer(token));
      assert.equal(verdict.status, 200, verdict.text);
      assert.equal(verdict.json.tier, tier);
      assert.equal(verdict.json.max_trade_usd, ceiling);
    }
  });
});

describe('preview tiers', () => {
  it('evaluates at the preview tier but never allows above the entitlement', async () => {
    const wallet = byTokens(0);
    const token = await tokenFor(wallet);
    const verdict = await postJson(url('/api/v1/analyze/trade'), trade(wallet.address), { ...bearer(token), 'x-preview-tier': '3' });
    assert.equal(verdict.json.tier, 3);
    // A hard override: the score keeps its band, the decision is deny (never warn or allow).
    assert.equal(verdict.json.decision, 'deny');
    assert.match(verdict.json.reasons[0], /^PREVIEW_ABOVE_ENTITLEMENT: evaluated as a preview of Tier 3; the wallet's holdings grant Tier 1/);
    const config = await getJson(url('/api/v1/config'), { ...bearer(token), 'x-preview-tier': '2' });
    assert.equal(config.json.max_trade_usd, 25000);
  });

  it('refuses a preview tier that is not 1, 2 or 3', async () => {
    const token = await tokenFor(byTokens(0));
    const response = await getJson(url('/api/v1/config'), { ...bearer(token), 'x-preview-tier': '4' });
    assert.equal(response.status, 422);
    assert.deepEqual(response.json.detail[0].loc, ['header', 'x-preview-tier']);
  });
});

describe('policy', () => {
  it('replaces blocked assets, normalized and deduplicated, and denies them on every channel', async () => {
    const wallet = byTokens(2500);
    const token = await tokenFor(wallet);
    const tsla = running.service.registry.bySymbol('TSLA')!.contract_address;
    const updated = await postJson(url('/api/v1/config'), { blocked_assets: ['tsla', 'TSLA', ' nvda', tsla.toUpperCase().replace('0X', '0x')] }, bearer(token));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.blocked_assets, ['TSLA', 'NVDA', tsla.toLowerCase()]);
    const rest = await postJson(url('/api/v1/analyze/trade'), trade(wallet.address), bearer(token));
    assert.equal(rest.json.decision, 'deny');
    assert.match(rest.json.reasons[0], /^ASSET_BLOCKED_BY_POLICY: /);
    const free = await postJson(url('/api/v1/analyze/free'), trade(wallet.address));
    assert.equal(free.json.decision, 'deny');
    await postJson(url('/api/v1/config'), { blocked_assets: [] }, bearer(token));
  });

  it('keeps each wallet to its own policy', async () => {
    const a = await tokenFor(byTokens(1000));
    const b = await tokenFor(byTokens(5000));
    await postJson(url('/api/v1/config'), { blocked_assets: ['AAPL'] }, bearer(a));
    assert.deepEqual((await getJson(url('/api/v1/config'), bearer(b))).json.blocked_assets, []);
    const other = await postJson(url('/api/v1/analyze/trade'), trade(byTokens(5000).address), bearer(a));
    assert.equal(other.status, 403);
    assert.deepEqual(other.json, { detail: 'The wallet in the body is not the signed-in wallet', code: 'wallet_mismatch' });
  });

  it('validates the update body', async () => {
    const token = await tokenFor(byTokens(1000));
    const response = await postJson(url('/api/v1/config'), { blocked_assets: 'TSLA' }, bearer(token));
    assert.equal(response.status, 422);
    assert.deepEqual(response.json.detail[0].loc, ['body', 'blocked_assets']);
  });
});

describe('security', () => {
  // The catalogue code each 401 text carries; every sign-in refusal is `sign_in_refused`.
  const CODES: Record<string, string> = {
    'Not authenticated': 'not_authenticated',
    "Authorization header must be 'Bearer <access_token>'": 'authorization_malformed',
    'Invalid token': 'token_invalid',
    'Token has expired': 'token_expired',
    'Token has been revoked': 'token_revoked',
  };
  const expect401 = (response: { status: number; json: any; headers: Headers }, detail: string) => {
    assert.equal(response.status, 401);
    assert.deepEqual(response.json, { detail, code: CODES[detail] ?? 'sign_in_refused' });
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
  };

  it('refuses a replayed nonce', async () => {
    // A wallet with no other message pending: asking again no longer replaces a message, so the
    // two the first test asked for byTokens(1000) still wait, and its replay would read as a
    // signature matching none of them (auth-nonces.test.ts covers that case).
    const wallet = byTokens(5000);
    const message = await nonce(wallet.address);
    const signature = await privateKeyToAccount(wallet.privateKey).signMessage({ message });
    assert.equal((await postJson(url('/api/v1/auth/wallet'), { address: wallet.address, signature })).status, 200);
    const replay = await postJson(url('/api/v1/auth/wallet'), { address: wallet.address, signature });
    expect401(replay, 'No sign-in message is pending for this address; request a nonce first');
  });

  it('refuses a signature by another key, a message for another address, and an edited message, without consuming the nonce', async () => {
    const [victim, attacker] = [byTokens(2500), byTokens(0)];
    const message = await nonce(victim.address);
    const forged = await privateKeyToAccount(attacker.privateKey).signMessage({ message });
    expect401(await postJson(url('/api/v1/auth/wallet'), { address: victim.address, signature: forged }),
      'Signature does not match the pending sign-in message for this address');
    expect401(await postJson(url('/api/v1/auth/wallet'), { address: attacker.address, signature: forged }),
      'No sign-in message is pending for this address; request a nonce first');
    const edited = message.replace('Chain ID: 4663', 'Chain ID: 1');
    const signedEdit = await privateKeyToAccount(victim.privateKey).signMessage({ message: edited });
    expect401(await postJson(url('/api/v1/auth/wallet'), { address: victim.address, signature: signedEdit }),
      'Signature does not match the pending sign-in message for this address');
    // None of that touched the pending message: the real signature still signs in.
    const genuine = await privateKeyToAccount(victim.privateKey).signMessage({ message });
    assert.equal((await postJson(url('/api/v1/auth/wallet'), { address: victim.address, signature: genuine })).status, 200);
  });

  it('refuses missing, malformed, forged and alg-none tokens', async () => {
    const path = url('/api/v1/config');
    expect401(await getJson(path), 'Not authenticated');
    for (const header of ['Basic abc', 'Bearer', 'Bearer a b', 'bearer x.y.z']) {
      expect401(await getJson(path, { authorization: header }), "Authorization header must be 'Bearer <access_token>'");
    }
    const token = await tokenFor(byTokens(1000));
    const [head, payload, signature] = token.split('.');
    const flipped = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect401(await getJson(path, bearer(flipped)), 'Invalid token');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, sub: byTokens(5000).address.toLowerCase() })).toString('base64url')}.`;
    expect401(await getJson(path, bearer(none)), 'Invalid token');
  });

  it('revokes a token at once; revoke without a valid token is 200 with revoked false', async () => {
    const token = await tokenFor(byTokens(1000));
    assert.deepEqual((await send('POST', url('/api/v1/auth/revoke'), undefined, bearer(token))).json, { revoked: true });
    expect401(await getJson(url('/api/v1/config'), bearer(token)), 'Token has been revoked');
    assert.deepEqual((await send('POST', url('/api/v1/auth/revoke'), undefined, bearer(token))).json, { revoked: false });
    const missing = await send('POST', url('/api/v1/auth/revoke'));
    assert.equal(missing.status, 200);
    assert.deepEqual(missing.json, { revoked: false });
  });

  it('refuses an expired token', async () => {
    const token = await tokenFor(byTokens(1000));
    clock += 3601 * 1000;
    try {
      expect401(await getJson(url('/api/v1/config'), bearer(token)), 'Token has expired');
    } finally {
      clock -= 3601 * 1000;
    }
  });

  it('refuses a token it has already accepted once the token expires', async () => {
    const token = await tokenFor(byTokens(1000));
    assert.equal((await getJson(url('/api/v1/config'), bearer(token))).status, 200);
    clock += 3600 * 1000;
    try {
      // Expiry is whole seconds: at exp itself the token is expired, as jose judges it on first sight.
      expect401(await getJson(url('/api/v1/config'), bearer(token)), 'Token has expired');
    } finally {
      clock -= 3600 * 1000;
    }
  });

  it('refuses a malformed address or signature with 422', async () => {
    const response = await getJson(url('/api/v1/auth/nonce?address=0x123'));
    assert.equal(response.status, 422);
    assert.deepEqual(response.json.detail[0].loc, ['query', 'address']);
    const login = await postJson(url('/api/v1/auth/wallet'), { address: byTokens(0).address, signature: 'not-hex' });
    assert.equal(login.status, 422);
    assert.deepEqual(login.json.detail[0].loc, ['body', 'signature']);
  });
});
