// POST /api/v1/token-safety on the devnet: every hostile fixture, every registry token, danger flags in evaluations.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Devnet } from '../../src/devnet/devnet.js';
import { createChainClient } from '../../src/chain/public-client.js';
import { ChainProbeCode } from '../../src/safety/probe-code.js';
import { compiledSwapHelper } from '../../src/assembly/fact-sources.js';
import { callMcpTool } from '../support/mcp-client.js';
import { TokenSafety } from '../../src/schemas/resources.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { compileValidator } from '../../src/schemas/validator.js';
import { postJson, startTestService, type TestService } from '../support/service.js';
import { writeRegistryFile } from './chain-support.js';

// A Tuesday during the NYSE session.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const ONE_TOKEN = '1000000000000000000';
let running: TestService;
let devnet: Devnet;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_TOKEN_SAFETY: '40' }, undefined, { now: () => OPEN_MARKET });
  devnet = running.service.chain.devnet!;
});
after(() => running.stop());

const conforms = compileValidator(TokenSafety, 'body');
const check = (address: string) => postJson(`${running.base}/api/v1/token-safety`, { contract_address: address });
/** The stable code of each risk factor, `ADVISORY:` kept. */
const codes = (factors: string[]) => factors.map((factor) => /^(ADVISORY: )?[A-Z_0-9]+/.exec(factor)![0]);

describe('hostile fixtures', () => {
  it('calls the honeypot dangerous: its sell reverts with TransferNotAllowed()', async () => {
    const { status, json } = await check(devnet.contracts.hostile.honeypot);
    assert.equal(status, 200);
    assert.deepEqual([json.severity, json.is_honeypot, json.owner_renounced, json.owner_is_multisig], ['danger', true, false, false]);
    assert.deepEqual(codes(json.risk_factors), ['HONEYPOT', 'MINT_CAPABILITY']);
    assert.equal(json.risk_factors[0], 'HONEYPOT: a simulated sell of one token through the venue pool reverted (TransferNotAllowed); holders cannot sell');
    const { probe, ...sell } = json.sell_simulation;
    assert.match(probe, /^0x[0-9a-fA-F]{40}$/);
    assert.notEqual(probe.toLowerCase(), devnet.deployer.toLowerCase());
    assert.deepEqual(sell, {
      ok: false, simulated: true, not_a_token: false, method: 'venue_v4', amount_in: ONE_TOKEN, paid: null, received: null,
      tax_bps: null, revert_reason: 'TransferNotAllowed', detail: 'the sell through the venue pool reverted',
    });
  });

  it('measures the fee-on-transfer token: the pool receives 90% (1,000 bps), a warning', async () => {
    const { json } = await check(devnet.contracts.hostile.feeOnTransfer);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['SELL_TAX', 'MINT_CAPABILITY', 'FEE_SETTER']);
    assert.equal(json.risk_factors[0], 'SELL_TAX: a simulated sell of one token through the venue pool delivered 90% of the tokens sent (1000 bps taken on transfer)');
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.paid, json.sell_simulation.tax_bps], [true, '900000000000000000', 1000]);
    assert.ok(Number(json.sell_simulation.received) > 0);
  });

  it('warns on the blacklist / pausable token, which still sells', async () => {
    const { json } = await check(devnet.contracts.hostile.blacklist);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['MINT_CAPABILITY', 'BLACKLIST_CAPABILITY', 'PAUSE_CAPABILITY']);
    assert.match(json.risk_factors[1], /blacklist\(address\)/);
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.paid, json.sell_simulation.tax_bps], [true, ONE_TOKEN, 0]);
  });

  it('finds the 2-of-3 multisig owner and excuses its mint', async () => {
    const { json } = await check(devnet.contracts.hostile.multisigOwned);
    assert.deepEqual([json.severity, json.owner_is_multisig, json.owner_renounced], ['safe', true, false]);
    assert.deepEqual(json.risk_factors, [
      `ADVISORY: MINT_CAPABILITY: mint(address,uint256), mintBatch(address[],uint256[]) let the 2-of-3 multisig owner ${devnet.contracts.hostile.multisig} create new supply (owner is a 2-of-3 multisig)`,
    ]);
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.paid], [true, ONE_TOKEN]);
  });

  it('finds the renounced owner', async () => {
    const { json } = await check(devnet.contracts.hostile.renounced);
    assert.deepEqual([json.severity, json.owner_renounced, json.owner_is_multisig], ['safe', true, false]);
    assert.deepEqual(codes(json.risk_factors), ['ADVISORY: MINT_CAPABILITY']);
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.paid], [true, ONE_TOKEN]);
  });

  it('sees through the EIP-1967 proxy to its implementation and sells through ERC-7201 storage', async () => {
    const { json } = await check(devnet.contracts.hostile.proxy);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['MINT_CAPABILITY', 'UPGRADEABLE_PROXY']);
    assert.equal(
      json.risk_factors[1],
      `UPGRADEABLE_PROXY: an EIP-1967 proxy to implementation ${devnet.contracts.hostile.proxyImplementation}; the code holders run can change`,
    );
    assert.deepEqual([json.sell_simulation.method, json.sell_simulation.ok, json.sell_simulation.paid], ['venue_v4', true, ONE_TOKEN]);
  });

  it('warns on the bare UUPS implementation: upgrade code with DELEGATECALL, sold by transfer (no pool)', async () => {
    const { json } = await check(devnet.contracts.hostile.proxyImplementation);
    assert.equal(json.severity, 'warn');
    assert.deepEqual(codes(json.risk_factors), ['DELEGATECALL', 'ADVISORY: MINT_CAPABILITY']);
    assert.match(json.risk_factors[0], /upgradeToAndCall\(address,bytes\)/);
    assert.deepEqual([json.sell_simulation.method, json.sell_simulation.ok], ['transfer', true]);
  });

  it('calls an address without code, and a contract that is no token, dangerous', async () => {
    const eoa = devnet.wallets[0].address;
    assert.deepEqual((await check(eoa)).json, {
      severity: 'danger', is_honeypot: false, risk_factors: [`NO_CODE: no contract code at ${eoa}; it is not a token`],
      owner_renounced: false, owner_is_multisig: false, sell_simulation: {},
    });
    const multisig = await check(devnet.contracts.hostile.multisig);
    assert.equal(multisig.json.severity, 'danger');
    assert.deepEqual(codes(multisig.json.risk_factors), ['NOT_A_TOKEN']);
  });
});

describe('registry tokens', () => {
  it('calls every registry asset, the service token and the settlement stablecoin safe', async () => {
    const listed = [...running.service.registry.assets.map((asset) => asset.contract_address), devnet.contracts.serviceToken, devnet.contracts.stablecoin];
    for (const address of listed) {
      const { status, json } = await check(address);
      assert.equal(status, 200);
      assert.equal(conforms(json).ok, true, 'the spec TokenSafety shape');
      assert.equal(json.severity, 'safe', `${address}: ${json.risk_factors}`);
      assert.deepEqual(codes(json.risk_factors), ['ADVISORY: MINT_CAPABILITY'], address);
      assert.deepEqual([json.is_honeypot, json.sell_simulation.ok, json.sell_simulation.tax_bps], [false, true, 0]);
    }
  });

  it('sells stocks through their pools and transfers tokens that have none', async () => {
    const stock = (await check(running.service.registry.bySymbol('TSLA')!.contract_address)).json.sell_simulation;
    assert.equal(stock.method, 'venue_v4');
    assert.ok(Number(stock.received) > 340_000_000 && Number(stock.received) < 350_250_000, stock.received);
    const stable = (await check(devnet.contracts.stablecoin)).json.sell_simulation;
    assert.deepEqual([stable.method, stable.amount_in, stable.paid, stable.received], ['transfer', '1000000', '1000000', '1000000']);
  });
});

describe('probe code', () => {
  it("runs SwapHelper's compiled runtime code, the same bytes as the deployed helper, when no chain address carries it", async () => {
    const client = createChainClient(devnet.rpcUrl);
    const compiled = await new ChainProbeCode(client, devnet.contracts.multicall3, null, compiledSwapHelper).swapHelper();
    assert.equal(compiled, await client.getCode({ address: devnet.contracts.swapHelper }));
  });
});

describe('findings in evaluations', () => {
  const trade = (contract: string, extra: Record<string, unknown> = {}) => ({
    wallet: '0x0000000000000000000000000000000000005afe', asset: 'TOKEN', contract_address: contract, side: 'buy', amount: 1,
    allow_unregistered: true, ...extra,
  });
  const free = (body: unknown) => postJson(`${running.base}/api/v1/analyze/free`, body);

  it('flags a danger finding for 24 hours and denies the next evaluation of that contract', async () => {
    const honeypot = devnet.contracts.hostile.honeypot;
    assert.equal((await check(honeypot)).json.severity, 'danger'); // this test's own finding, not an earlier test's
    const flag = JSON.parse((await running.service.store.get(`danger:${honeypot.toLowerCase()}`))!);
    assert.equal(flag.severity, 'danger');
    assert.deepEqual(codes(flag.risk_factors), ['HONEYPOT', 'MINT_CAPABILITY']);
    assert.equal(flag.checked_at, OPEN_MARKET);
    const verdict = await free(trade(honeypot));
    assert.equal(verdict.json.decision, 'deny');
    assert.match(verdict.json.reasons[0], /^CONTRACT_FLAGGED_DANGER: token-safety check returned severity=danger for 0x[0-9a-f]{40} \(risk factors: HONEYPOT: /);
    assert.deepEqual([verdict.json.contract_risk.severity, verdict.json.contract_risk.flagged_danger], ['danger', true]);
  });

  it('reports the latest result as contract_risk: a warning scores, a registry token stays safe', async () => {
    const tsla = running.service.registry.bySymbol('TSLA')!;
    // The results this test reads back, checked here rather than left by earlier tests.
    assert.deepEqual([(await check(devnet.contracts.hostile.feeOnTransfer)).json.severity, (await check(tsla.contract_address)).json.severity], ['warn', 'safe']);
    const fot = await free(trade(devnet.contracts.hostile.feeOnTransfer));
    assert.equal(fot.json.contract_risk.severity, 'warn');
    assert.ok(fot.json.reasons.some((r: string) => r.startsWith('CONTRACT_SAFETY_WARN: token-safety check returned severity=warn')), fot.text);
    const stock = await free(trade(tsla.contract_address, { asset: 'TSLA', allow_unregistered: false }));
    assert.deepEqual([stock.json.decision, stock.json.contract_risk.severity, stock.json.contract_risk.flagged_danger], ['allow', 'safe', false]);
  });

  it('keeps the danger flag 24 hours and the latest result 10 minutes', async () => {
    // Its own service on the same chain: sweeping drops entries, which no other test may miss.
    const dir = mkdtempSync(join(tmpdir(), 'token-safety-ttl-'));
    const own = await startTestService({ RPC_URL: devnet.rpcUrl, REGISTRY_FILE: writeRegistryFile(devnet, dir) }, undefined, { now: () => OPEN_MARKET });
    try {
      const honeypot = devnet.contracts.hostile.honeypot;
      const answer = await postJson(`${own.base}/api/v1/token-safety`, { contract_address: honeypot });
      assert.equal(answer.json.severity, 'danger');
      const store = own.service.store as MemoryStore;
      const [danger, latest] = [`danger:${honeypot.toLowerCase()}`, `safety:${honeypot.toLowerCase()}`];
      // TTLs run on the service's clock: sweep at instants measured from it.
      store.sweep(OPEN_MARKET + 9 * 60_000);
      assert.deepEqual([await store.get(danger) !== null, await store.get(latest) !== null], [true, true]);
      store.sweep(OPEN_MARKET + 11 * 60_000);
      assert.deepEqual([await store.get(danger) !== null, await store.get(latest) !== null], [true, false]);
      store.sweep(OPEN_MARKET + 23.9 * 3_600_000);
      assert.notEqual(await store.get(danger), null);
      store.sweep(OPEN_MARKET + 24.1 * 3_600_000);
      assert.equal(await store.get(danger), null);
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the MCP tool severity, risk factors and sell_simulation_ok', async () => {
    const answer = await callMcpTool(running.base, 'check_token_safety', { contract_address: devnet.contracts.hostile.honeypot });
    assert.equal(answer.isError, false);
    assert.deepEqual(Object.keys(answer.structured).sort(), ['risk_factors', 'sell_simulation_ok', 'severity']);
    assert.deepEqual([answer.structured.severity, answer.structured.sell_simulation_ok], ['danger', false]);
    const offline = await startTestService();
    try {
      assert.deepEqual(await callMcpTool(offline.base, 'check_token_safety', { contract_address: devnet.contracts.hostile.honeypot }), {
        isError: true,
        structured: { error: 'this capability needs a chain node; do not assume the token is safe', code: 'chain_not_configured' },
      });
    } finally {
      await offline.stop();
    }
  });
});

describe('requests', () => {
  it('refuses an address that is not 42 characters, in the FastAPI shape', async () => {
    const { status, json } = await postJson(`${running.base}/api/v1/token-safety`, { contract_address: '0x1234' });
    assert.equal(status, 422);
    assert.deepEqual(json, {
      detail: [{ loc: ['body', 'contract_address'], msg: 'String should have at least 42 characters', type: 'string_too_short', input: '0x1234', ctx: { min_length: 42 } }],
      code: 'validation_failed',
    });
  });

  it('limits requests per IP with 429 and Retry-After', async () => {
    let last = await check(devnet.contracts.hostile.renounced);
    for (let i = 0; i < 40 && last.status !== 429; i++) last = await check(devnet.contracts.hostile.renounced);
    assert.equal(last.status, 429);
    assert.ok(Number(last.headers.get('retry-after')) >= 1);
  });
});
