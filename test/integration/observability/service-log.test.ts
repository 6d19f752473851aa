// npm start's log read whole after a real run: one JSON line per request, tied by its request id, and no secret in it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_ACCOUNTS } from '../../../src/tools/devnet/wallets.js';
import { freePort } from '../../support/redis-server.js';
import { getJson, postJson, send, type HttpResult } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { signPayment } from '../../support/x402-payer.js';

const JWT_SECRET = 'service-log-test-jwt-secret-never-logged-0123456789';
const ADMIN_TOKEN = 'service-log-test-admin-token-never-logged';
/** Demo wallet B of the embedded devnet (anvil account 2): holds the stablecoin it pays with. */
const PAYER = ANVIL_DEV_ACCOUNTS[2];

let service: ServiceProcess;
let output = '';
let base: string;
let dataDir: string;
const answers: HttpResult[] = [];
const secrets: Record<string, string> = { JWT_SECRET, ADMIN_TOKEN };

before(async () => {
  const port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'guardrail-log-'));
  // The embedded devnet, with its own facilitator: sign-in, paid calls and feeds are all real.
  service = await startServiceProcess({
    PORT: String(port), DATA_DIR: dataDir, JWT_SECRET, ADMIN_TOKEN, WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: undefined, RPC_URL: undefined,
  });
  base = service.base;
  await exercise();
  await service.stop('SIGTERM');
  output = service.output();
});
after(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Everything that carries a secret: sign-in, bearer calls, a paid call, the admin route. */
async function exercise(): Promise<void> {
  const signer = privateKeyToAccount(PAYER.privateKey);
  const nonce = await getJson(`${base}/api/v1/auth/nonce?address=${signer.address}`);
  const signature = await signer.signMessage({ message: nonce.json.message });
  const login = await postJson(`${base}/api/v1/auth/wallet`, { address: signer.address, signature });
  secrets.SIWE_SIGNATURE = signature;
  secrets.ACCESS_TOKEN = login.json.access_token;
  const bearer = { authorization: `Bearer ${login.json.access_token}` };
  const assets = (await getJson(`${base}/api/v1/assets`)).json as { symbol: string; contract_address: string }[];
  const trade = { wallet: signer.address, asset: 'TSLA', contract_address: assets.find((a) => a.symbol === 'TSLA')!.contract_address, side: 'buy', amount: 1 };
  answers.push(nonce, login, await getJson(`${base}/api/v1/config`, bearer), await postJson(`${base}/api/v1/analyze/trade`, trade, bearer));
  const challenge = await postJson(`${base}/api/x402/analyze`, trade);
  const payment = await signPayment(PAYER.privateKey, challenge.json.accepts[0] as PaymentRequirementsV1);
  secrets.X_PAYMENT = payment;
  secrets.PAYMENT_SIGNATURE = (JSON.parse(Buffer.from(payment, 'base64').toString()) as { payload: { signature: string } }).payload.signature;
  answers.push(challenge, await postJson(`${base}/api/x402/analyze`, trade, { 'x-payment': payment }));
  answers.push(await getJson(`${base}/debug/feeds`, { 'x-admin-token': ADMIN_TOKEN }), await getJson(`${base}/debug/feeds`, { 'x-admin-token': 'a-wrong-admin-token-value' }));
  // What no route answers, and a body that is not JSON.
  answers.push(await getJson(`${base}/no/such/path`), await send('DELETE', `${base}/api/v1/assets`));
  answers.push(await send('POST', `${base}/api/v1/analyze/free`, JSON.stringify(trade), { 'content-type': 'text/plain' }));
}

describe('the service log of a real run', () => {
  it('did what the run asked (sign-in, bearer calls, a paid verdict, the admin route)', () => {
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 402, 200, 200, 403, 404, 405, 415]);
  });

  it('is JSON, one line per event and per answered request, each request tied to its X-Request-Id', () => {
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.some((line) => /listening on/.test(String(line.msg))));
    const requests = new Map(lines.filter((line) => line.msg === 'request').map((line) => [line.req_id, line]));
    for (const answer of answers) {
      const id = answer.headers.get('x-request-id')!;
      const line = requests.get(id);
      assert.ok(line, `a log line for request ${id}`);
      assert.equal(line.status, answer.status);
      assert.equal(typeof line.ms, 'number');
      assert.equal(typeof line.route, 'string');
    }
  });

  it('writes each line at its level: refusals worth seeing at warn, the rest at info', () => {
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const levelOf = (answer: HttpResult) => lines.find((line) => line.msg === 'request' && line.req_id === answer.headers.get('x-request-id'))?.level;
    assert.deepEqual(answers.map(levelOf), ['info', 'info', 'info', 'info', 'info', 'info', 'info', 'warn', 'info', 'info', 'warn']);
    assert.equal(lines.find((line) => line.msg === 'SIGTERM: closing')?.level, 'info');
  });

  it('holds none of the secrets that passed through it', () => {
    for (const [name, secret] of Object.entries(secrets)) {
      assert.ok(secret.length > 20, `${name} was exercised`);
      assert.equal(output.includes(secret), false, `${name} is in the log`);
    }
  });
});
