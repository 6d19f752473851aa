// POST /api/v1/simulate-balance on the devnet, and proof that no check ever sends a transaction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWalletClient, http, type Address, type PublicClient } from 'viem';
import { callMcpTool } from '../../../support/mcp-client.js';
import type { Devnet } from '../../../../src/tools/devnet/devnet.js';
import { publicClientFor } from '../../../support/devnet-helpers.js';
import { SimulateBalanceResponse } from '../../../../src/schemas/resources.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import { postJson, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;
let devnet: Devnet;
let client: PublicClient;
let holder: Address;
let tsla: string;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMITS: 'off' });
  devnet = running.service.chain.devnet!;
  client = publicClientFor(devnet);
  holder = devnet.wallets[1].address;
  tsla = running.service.registry.bySymbol('TSLA')!.contract_address;
});
after(() => running.stop());

const simulate = (body: Record<string, unknown>) => postJson(`${running.base}/api/v1/simulate-balance`, body);

describe('balance simulation', () => {
  it('reads the balance, proves slot 0 and returns the post-trade balance in token units', async () => {
    const { status, json } = await simulate({ token_address: tsla, holder, delta: -2.5 });
    assert.equal(status, 200);
    assert.deepEqual(json, { token_address: tsla, holder, balance_slot: 0, current: 10, delta: -2.5, post_trade: 7.5 });
    assert.equal(compileValidator(SimulateBalanceResponse, 'body')(json).ok, true);
  });

  it('applies the given decimals (the 6-decimal stablecoin)', async () => {
    const { json } = await simulate({ token_address: devnet.contracts.stablecoin, holder, delta: 250.5, decimals: 6 });
    assert.deepEqual(json, { token_address: devnet.contracts.stablecoin, holder, balance_slot: 0, current: 1_000, delta: 250.5, post_trade: 1_250.5 });
  });

  it("finds OpenZeppelin 5's ERC-7201 namespaced balances behind the proxy (offset 0 in the namespace)", async () => {
    const { status, json } = await simulate({ token_address: devnet.contracts.hostile.proxy, holder, delta: -0.000001 });
    assert.equal(status, 200);
    assert.deepEqual([json.balance_slot, json.current, json.post_trade], [0, 100, 99.999999]);
  });

  it('uses a given balance_slot and refuses one that does not hold the balance', async () => {
    assert.equal((await simulate({ token_address: tsla, holder, delta: 1, balance_slot: 0 })).json.post_trade, 11);
    const wrong = await simulate({ token_address: tsla, holder, delta: 1, balance_slot: 5 });
    assert.equal(wrong.status, 422);
    const message = 'balance_slot 5 does not hold the balance of this token (tried the Solidity and Vyper mapping layouts and the OpenZeppelin ERC-7201 namespace)';
    assert.deepEqual(wrong.json, { detail: [{ loc: ['body', 'balance_slot'], msg: `Value error, ${message}`, type: 'value_error', input: 5, ctx: { error: message } }], code: 'validation_failed' });
  });

  it('refuses an address without code, and a spend larger than the balance', async () => {
    const eoa = await simulate({ token_address: holder, holder, delta: 1 });
    assert.equal(eoa.status, 422);
    assert.deepEqual(eoa.json.detail[0].loc, ['body', 'token_address']);
    assert.equal(eoa.json.detail[0].msg, `Value error, no contract code at ${holder}`);
    const overdraw = await simulate({ token_address: tsla, holder, delta: -10.5 });
    assert.equal(overdraw.status, 422);
    assert.deepEqual(overdraw.json.detail[0].loc, ['body', 'delta']);
    assert.equal(overdraw.json.detail[0].msg, 'Value error, delta -10.5 would take the balance of 10 below zero');
  });

  it('validates the request in the FastAPI shape', async () => {
    const { status, json } = await simulate({ token_address: tsla, holder, delta: 1, decimals: 37 });
    assert.equal(status, 422);
    assert.deepEqual(json.detail, [{ loc: ['body', 'decimals'], msg: 'Input should be less than or equal to 36', type: 'less_than_equal', input: 37, ctx: { le: 36 } }]);
  });

  it('gives the MCP tool before, after and delta as strings', async () => {
    assert.deepEqual(await callMcpTool(running.base, 'simulate_balance', { token_address: tsla, holder, delta: -0.25 }), {
      isError: false,
      structured: { before: '10', after: '9.75', delta: '-0.25' },
    });
    assert.deepEqual(await callMcpTool(running.base, 'simulate_balance', { token_address: holder, holder, delta: 1 }), {
      isError: true,
      structured: { error: `no contract code at ${holder}`, code: 'validation_failed' },
    });
  });
});

describe('read-only', () => {
  it('sends no transaction and leaves every nonce unchanged after simulations and safety checks', async () => {
    const accounts = await createWalletClient({ transport: http(devnet.rpcUrl) }).getAddresses();
    const snapshot = async () => ({ nonces: await Promise.all(accounts.map((address) => client.getTransactionCount({ address }))) });
    const firstBlock = await client.getBlockNumber();
    const before = await snapshot();
    assert.ok(before.nonces[0] > 0, 'the deployer has sent transactions');
    const tokens = [...running.service.registry.assets.map((a) => a.contract_address), ...Object.values(devnet.contracts.hostile)];
    for (const token of tokens) {
      const safety = await postJson(`${running.base}/api/v1/token-safety`, { contract_address: token });
      assert.equal(safety.status, 200);
      for (const wallet of [devnet.deployer, holder]) {
        const answer = await simulate({ token_address: token, holder: wallet, delta: 0.5 });
        assert.ok(answer.status === 200 || answer.status === 422, `${token}: ${answer.status}`);
      }
    }
    assert.deepEqual(await snapshot(), before);
    // The devnet mines a block a second of its own (ARCHITECTURE.md "Devnet block time"): those carry no transaction.
    const lastBlock = await client.getBlockNumber();
    for (let number = firstBlock + 1n; number <= lastBlock; number++) {
      assert.deepEqual((await client.getBlock({ blockNumber: number })).transactions, [], `block ${number}`);
    }
  });
});
