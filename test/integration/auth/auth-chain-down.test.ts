// Issue 11 defects 3 (chain) and 5: a sign-in the node cannot complete is a 503 that spends no nonce; bodies hold no internals.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Devnet } from '../../../src/tools/devnet/devnet.js';
import { freePort } from '../../../src/tools/devnet/free-port.js';
import { getJson, postJson, SAMPLE_REGISTRY, startTestService, type HttpResult, type TestService } from '../../support/service.js';
import { startPlainAnvil, stopProcess } from '../../support/chain-support.js';

// A Tuesday during the NYSE session, fixed.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const CHAIN_DOWN = { detail: 'Sign-in did not complete: the chain node did not answer', code: 'chain_unavailable' };

async function signedLogin(base: string, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  const response = await getJson(`${base}/api/v1/auth/nonce?address=${account.address}`);
  assert.equal(response.status, 200, response.text);
  return { address: account.address, signature: await account.signMessage({ message: response.json.message }) };
}

const statusAndBody = (response: HttpResult) => [response.status, response.json];

describe('the embedded devnet stops answering', () => {
  let running: TestService;
  let devnet: Devnet;
  before(async () => {
    running = await startTestService({ REGISTRY_FILE: '', RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
    devnet = running.service.chain.devnet!;
  });
  after(() => running.stop());

  it('a sign-in whose holdings read hangs is a 503, and the same signature signs in once the node answers', async () => {
    // The holdings of this wallet were never read, so the sign-in must ask the node.
    const login = await signedLogin(running.base, devnet.wallets[1].privateKey);
    process.kill(devnet.anvil.pid, 'SIGSTOP');
    let hung;
    try {
      hung = await postJson(`${running.base}/api/v1/auth/wallet`, login);
    } finally {
      process.kill(devnet.anvil.pid, 'SIGCONT');
    }
    assert.deepEqual(statusAndBody(hung), [503, CHAIN_DOWN]);
    const retried = await postJson(`${running.base}/api/v1/auth/wallet`, login);
    assert.equal(retried.status, 200, retried.text);
  });

  it('with the node dead: 503s that say what failed and a code, the node URL and call data only in the log', async () => {
    const login = await signedLogin(running.base, devnet.wallets[2].privateKey);
    const tsla = running.service.registry.bySymbol('TSLA')!.contract_address;
    process.kill(devnet.anvil.pid, 'SIGKILL');
    const signIn = await postJson(`${running.base}/api/v1/auth/wallet`, login);
    const again = await postJson(`${running.base}/api/v1/auth/wallet`, login);
    const verdict = await postJson(`${running.base}/api/v1/analyze/free`, { wallet: login.address, asset: 'TSLA', contract_address: tsla, side: 'buy', amount: 1 });
    const safety = await postJson(`${running.base}/api/v1/token-safety`, { contract_address: devnet.contracts.hostile.blacklist });
    const balance = await postJson(`${running.base}/api/v1/simulate-balance`, { token_address: tsla, holder: login.address, delta: 1 });

    assert.deepEqual(statusAndBody(signIn), [503, CHAIN_DOWN]);
    // Still a 503, not "no message pending": the failed attempt spent nothing.
    assert.deepEqual(statusAndBody(again), [503, CHAIN_DOWN]);
    assert.equal(verdict.status, 503);
    assert.deepEqual([verdict.json.error, verdict.json.code, verdict.json.reasons], [
      'fact gathering failed: the chain node did not answer',
      'chain_unavailable',
      ['EVALUATION_ERROR: fact gathering failed: the chain node did not answer; no verdict was produced, do not trade'],
    ]);
    assert.deepEqual(statusAndBody(safety), [503, {
      detail: 'No token-safety result was produced; do not assume the token is safe',
      error: 'the chain node did not answer',
      code: 'chain_unavailable',
    }]);
    assert.deepEqual(statusAndBody(balance), [503, { detail: 'No balance simulation was produced', error: 'the chain node did not answer', code: 'chain_unavailable' }]);

    const logged = (prefix: string) => running.logs.find((line) => line.startsWith(prefix)) ?? '';
    // The sign-in's first read is the chain head (per-wallet facts are read at a head confirmed after the request),
    // over the head stream's socket or, once the stream is closed, over HTTP.
    assert.match(logged('unavailable: POST /api/v1/auth/wallet: chain_unavailable: '), new RegExp(`URL: (http|ws)://${new URL(devnet.rpcUrl).host}.*"method":"eth_(call|getBlockByNumber)"`));
    assert.match(logged('unavailable: evaluation (free) fact gathering: chain_unavailable: '), /failed: (HTTP request failed|the embedded devnet \(anvil pid \d+\) exited unexpectedly)/);
    assert.match(logged('unavailable: POST /api/v1/token-safety: chain_unavailable: '), /code read of 0x[0-9a-fA-F]{40} failed/);
    assert.match(logged('unavailable: POST /api/v1/simulate-balance: chain_unavailable: '), /code read of 0x[0-9a-fA-F]{40} failed/);
  });
});

describe('a node URL with credentials (RPC_URL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'auth-chain-down-'));
  let running: TestService;
  let port: number;
  before(async () => {
    port = await freePort();
    // A real node that then dies; the service keeps the URL, whose path and query carry a key.
    await stopProcess(await startPlainAnvil(port));
    const registry = join(dir, 'registry.json');
    const sample = JSON.parse(readFileSync(SAMPLE_REGISTRY, 'utf8'));
    writeFileSync(registry, JSON.stringify({ ...sample, service_token: { address: sample.assets[0].contract_address, decimals: 18 } }));
    const env = { RPC_URL: `http://127.0.0.1:${port}/v2/path-s3cret?apikey=query-s3cret`, REGISTRY_FILE: registry, RATE_LIMITS: 'off' };
    running = await startTestService(env, undefined, { now: () => OPEN_MARKET });
  });
  after(async () => {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs where the node is (scheme, host, port) and never its path or query', async () => {
    const login = await signedLogin(running.base, keccak256(toHex('auth-chain-down wallet')));
    const answer = await postJson(`${running.base}/api/v1/auth/wallet`, login);
    assert.deepEqual(statusAndBody(answer), [503, CHAIN_DOWN]);
    const line = running.logs.find((entry) => entry.startsWith('unavailable: POST /api/v1/auth/wallet: chain_unavailable: ')) ?? '';
    assert.match(line, new RegExp(`URL: http://127\\.0\\.0\\.1:${port} `));
    assert.deepEqual(running.logs.filter((entry) => entry.includes('s3cret')), []);
  });
});
