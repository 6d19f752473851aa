// The default store across a crash: a service killed and started again on its DATA_DIR keeps what users set and security actions took.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { freePort } from '../../../src/tools/devnet/free-port.js';
import { PaidWorld, payWith } from '../../support/paid-world.js';
import { getJson, postJson, send, type HttpResult } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { signPayment } from '../../support/x402-payer.js';

const tempDir = useTempDirs('restart-state-');
let world: PaidWorld;

before(async () => {
  world = await PaidWorld.start(await tempDir());
});
after(() => world?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const free = (base: string, body: Record<string, unknown>) => postJson(`${base}/api/v1/analyze/free`, body);
const codes = (verdict: HttpResult) => (verdict.json.reasons as string[]).map((reason) => reason.split(':')[0]);

async function signIn(base: string, key: Hex): Promise<string> {
  const { address } = privateKeyToAccount(key);
  const nonce = await getJson(`${base}/api/v1/auth/nonce?address=${address}`);
  assert.equal(nonce.status, 200, nonce.text);
  const signature = await privateKeyToAccount(key).signMessage({ message: nonce.json.message });
  const session = await postJson(`${base}/api/v1/auth/wallet`, { address, signature });
  assert.equal(session.status, 200, session.text);
  return session.json.access_token;
}

/** What the first life of the service did and answered, to be checked against the second. */
interface Acted {
  wallet: string;
  kept: string;
  revoked: string;
  idempotent: { body: Record<string, unknown>; seq: number };
  paid: { body: Record<string, unknown>; payment: string; seq: number; payer: string };
}

async function act(base: string): Promise<Acted> {
  const key = generatePrivateKey();
  const wallet = privateKeyToAccount(key).address;
  const [kept, revoked] = [await signIn(base, key), await signIn(base, key)];
  const policy = await postJson(`${base}/api/v1/config`, { blocked_assets: ['TSLA'] }, bearer(kept));
  assert.equal(policy.status, 200, policy.text);
  assert.ok(codes(await free(base, world.trade({ wallet, amount: 1 }))).includes('ASSET_BLOCKED_BY_POLICY'));
  assert.deepEqual((await send('POST', `${base}/api/v1/auth/revoke`, undefined, bearer(revoked))).json, { revoked: true });
  assert.equal((await send('GET', `${base}/api/v1/config`, undefined, bearer(revoked))).json.code, 'token_revoked');
  const safety = await postJson(`${base}/api/v1/token-safety`, { contract_address: world.devnet.contracts.hostile.honeypot });
  assert.equal(safety.json.severity, 'danger', safety.text);

  const idempotentBody = world.trade({ amount: 1, request_id: 'restart-state-1' });
  const first = await free(base, idempotentBody);
  assert.equal(first.status, 200, first.text);

  const payer = world.devnet.wallets[2];
  const paidBody = world.trade();
  const payment = await signPayment(payer.privateKey, await world.challenge(base));
  const bought = await payWith(base, paidBody, payment);
  assert.equal(bought.status, 200, bought.text);
  return {
    wallet, kept, revoked,
    idempotent: { body: idempotentBody, seq: first.json.audit_seq },
    paid: { body: paidBody, payment, seq: bought.json.audit_seq, payer: payer.address },
  };
}

describe('a restart on the same DATA_DIR with the default store', () => {
  it('keeps policies, revocations, danger flags, used payments and request_ids, after a crash', async () => {
    const env = {
      PORT: String(await freePort()), DATA_DIR: await tempDir(), RPC_URL: world.devnet.rpcUrl, REGISTRY_FILE: world.registryFile,
      PAY_TO_ADDRESS: world.devnet.treasury, FACILITATOR_URL: world.facilitator.url, REQUEST_LOG: 'off',
    };
    const first = await startServiceProcess(env);
    const acted = await act(first.base);
    const paidOnce = await world.usdc(acted.paid.payer);
    // No clean stop: what the service answered must already be on disk.
    await first.stop('SIGKILL');
    const second: ServiceProcess = await startServiceProcess(env);
    try {
      await checkKept(second.base, acted);
      assert.equal(await world.usdc(acted.paid.payer), paidOnce, 'the payment was not settled a second time');
    } finally {
      await second.stop();
    }
  });
});

async function checkKept(base: string, acted: Acted): Promise<void> {
  const blocked = await free(base, world.trade({ wallet: acted.wallet, amount: 1 }));
  assert.equal(blocked.json.decision, 'deny', blocked.text);
  assert.ok(codes(blocked).includes('ASSET_BLOCKED_BY_POLICY'), blocked.text);
  assert.deepEqual((await send('GET', `${base}/api/v1/config`, undefined, bearer(acted.kept))).json.blocked_assets, ['TSLA']);
  const revoked = await send('GET', `${base}/api/v1/config`, undefined, bearer(acted.revoked));
  assert.deepEqual([revoked.status, revoked.json], [401, { detail: 'Token has been revoked', code: 'token_revoked' }]);

  const flagged = await free(base, { ...world.trade({ amount: 1 }), asset: 'TOKEN', contract_address: world.devnet.contracts.hostile.honeypot, allow_unregistered: true });
  assert.equal(flagged.json.decision, 'deny', flagged.text);
  assert.deepEqual([codes(flagged)[0], flagged.json.contract_risk.flagged_danger], ['CONTRACT_FLAGGED_DANGER', true]);

  const replayed = await free(base, acted.idempotent.body);
  assert.equal(replayed.json.audit_seq, acted.idempotent.seq, replayed.text);

  const again = await payWith(base, acted.paid.body, acted.paid.payment);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.audit_seq, acted.paid.seq);
  const otherBody = await payWith(base, world.trade(), acted.paid.payment);
  assert.deepEqual([otherBody.status, otherBody.json.reason], [402, 'payment_used']);
}
