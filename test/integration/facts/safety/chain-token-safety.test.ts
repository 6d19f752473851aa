// POST /api/v1/token-safety on the devnet: every hostile fixture, every registry token, danger flags in evaluations.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Devnet } from '../../../../src/tools/devnet/devnet.js';
import { HOLD_HORIZONS } from '../../../../src/facts/safety/simulation-bundle.js';
import { holdWords } from '../../../../src/facts/safety/simulation-outcome.js';
import { callMcpTool } from '../../../support/mcp-client.js';
import { TokenSafety } from '../../../../src/schemas/resources.js';
import type { LmdbStore } from '../../../../src/store/lmdb-store.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import { postJson, startTestService, type TestService } from '../../../support/service.js';
import { writeRegistryFile } from '../../../support/chain-support.js';

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
  it('calls the honeypot dangerous: bought through the pool, its sells revert with TransferNotAllowed()', async () => {
    const { status, json } = await check(devnet.contracts.hostile.honeypot);
    assert.equal(status, 200);
    assert.deepEqual([json.severity, json.is_honeypot, json.owner_renounced, json.owner_is_multisig], ['danger', true, false, false]);
    assert.deepEqual(codes(json.risk_factors), ['HONEYPOT', 'MINT_CAPABILITY']);
    assert.equal(
      json.risk_factors[0],
      'HONEYPOT: a holder that bought through the venue pool could not sell: its sell into the venue pool reverted at once and after holding 12 seconds, 6, 12 and 18 hours and 1, 7 and 30 days (TransferNotAllowed); holders cannot sell',
    );
    const { probe, bought, base_fee_wei, gas_price_wei, sized_sell_amount, ...sell } = json.sell_simulation;
    // A twentieth of the pool's side of the token, sold at once (ARCHITECTURE.md "Token safety").
    assert.ok(BigInt(sized_sell_amount) > BigInt(bought) * 10n, `${sized_sell_amount} against ${bought}`);
    assert.match(probe, /^0x[0-9a-fA-F]{40}$/);
    // Every leg paid a real price: at least a 1 gwei base fee and a 1 gwei tip.
    assert.ok(BigInt(base_fee_wei) >= 1_000_000_000n, base_fee_wei);
    assert.equal(BigInt(gas_price_wei), BigInt(base_fee_wei) + 1_000_000_000n);
    assert.notEqual(probe.toLowerCase(), devnet.deployer.toLowerCase());
    assert.ok(BigInt(bought) > 0n, bought);
    assert.deepEqual(sell, {
      ok: false, simulated: true, not_a_token: false, method: 'venue_v4', sold_via: 'venue_v4', amount_in: null, paid: null, received: null,
      buy_tax_bps: 0, sell_tax_bps: null, tax_bps: null, buy_ok: true, sell_fresh_ok: false, sell_held_ok: false, wallet_transfer_ok: false,
      own_transfer_ok: false, sized_sell_ok: false, transfer_from_ok: false, owner_powers: [],
      // Intra-day holds sell by transfer alone (ARCHITECTURE.md "Token safety").
      sells: [{ seconds: 0n, blocks: 0n, paths: ['transfer', 'transfer_from'] as const }, ...HOLD_HORIZONS].flatMap(({ seconds, blocks, paths }) => paths.map((via) => ({ held_seconds: Number(seconds), held_blocks: Number(blocks), via }))).map(({ held_seconds, held_blocks, via }) => ({
        held_seconds, held_blocks, via, ok: false, sell_tax_bps: null,
      })),
      revert_reason: 'TransferNotAllowed',
      detail: ['bought through the venue pool', 'sold into the venue pool at once: reverted',
        ...HOLD_HORIZONS.map((_, i) => `sold into the venue pool after holding ${holdWords(i + 1)}: reverted`), 'transferred to a wallet: reverted',
        `sold ${sized_sell_amount} base units (a share of the pool's depth) at once: reverted`,
        `a wallet without code transferred it itself after holding ${holdWords(HOLD_HORIZONS.length)}: failed`].join('; '),
    });
  });

  it('measures the fee-on-transfer token on both sides: 10% (1,000 bps) taken on the buy and on the sell, a warning', async () => {
    const { json } = await check(devnet.contracts.hostile.feeOnTransfer);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['BUY_TAX', 'SELL_TAX', 'MINT_CAPABILITY', 'FEE_SETTER']);
    assert.equal(json.risk_factors[1], 'SELL_TAX: a simulated sell into the venue pool delivered 90% of the tokens sent (1000 bps taken on transfer)');
    const sell = json.sell_simulation;
    assert.deepEqual([sell.ok, sell.buy_tax_bps, sell.sell_tax_bps, sell.tax_bps, sell.transfer_from_ok], [true, 1000, 1000, 1000, true]);
    // Measured on every sell, at once and after each hold, by transfer and through the router.
    assert.deepEqual(sell.sells.map((leg: { via: string; sell_tax_bps: number }) => [leg.via, leg.sell_tax_bps]), [['transfer', 'transfer_from'], ...HOLD_HORIZONS.map((horizon) => horizon.paths)].flatMap((paths) => paths.map((via) => [via, 1000])));
    assert.equal(BigInt(sell.paid), BigInt(sell.amount_in) - BigInt(sell.amount_in) / 10n);
    assert.ok(Number(sell.received) > 0);
  });

  it('warns on the blacklist / pausable token, which still sells', async () => {
    const { json } = await check(devnet.contracts.hostile.blacklist);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['MINT_CAPABILITY', 'BLACKLIST_CAPABILITY', 'PAUSE_CAPABILITY']);
    assert.match(json.risk_factors[1], /blacklist\(address\)/);
    const sell = json.sell_simulation;
    assert.deepEqual([sell.ok, sell.paid, sell.sell_tax_bps, sell.sell_fresh_ok, sell.sell_held_ok, sell.wallet_transfer_ok, sell.own_transfer_ok, sell.sized_sell_ok], [true, sell.amount_in, 0, true, true, true, true, true]);
  });

  it('finds the 2-of-3 multisig owner and excuses its mint', async () => {
    const { json } = await check(devnet.contracts.hostile.multisigOwned);
    assert.deepEqual([json.severity, json.owner_is_multisig, json.owner_renounced], ['safe', true, false]);
    assert.deepEqual(json.risk_factors, [
      `ADVISORY: MINT_CAPABILITY: mint(address,uint256), mintBatch(address[],uint256[]) let the 2-of-3 multisig owner ${devnet.contracts.hostile.multisig} create new supply (owner is a 2-of-3 multisig)`,
    ]);
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.paid], [true, json.sell_simulation.amount_in]);
  });

  it('finds the renounced owner', async () => {
    const { json } = await check(devnet.contracts.hostile.renounced);
    assert.deepEqual([json.severity, json.owner_renounced, json.owner_is_multisig], ['safe', true, false]);
    assert.deepEqual(codes(json.risk_factors), ['ADVISORY: MINT_CAPABILITY']);
    assert.deepEqual([json.sell_simulation.ok, json.sell_simulation.method], [true, 'venue_v4']);
  });

  it('sees through the EIP-1967 proxy to its implementation and sells through ERC-7201 storage', async () => {
    const { json } = await check(devnet.contracts.hostile.proxy);
    assert.deepEqual([json.severity, json.is_honeypot], ['warn', false]);
    assert.deepEqual(codes(json.risk_factors), ['MINT_CAPABILITY', 'UPGRADEABLE_PROXY', 'OWNER_POWERS_UNCHECKED']);
    assert.equal(
      json.risk_factors[1],
      `UPGRADEABLE_PROXY: an EIP-1967 proxy to implementation ${devnet.contracts.hostile.proxyImplementation}; the code holders run can change`,
    );
    // Its implementation's code is read in the second round trip, too late to call its functions as the owner.
    assert.equal(
      json.risk_factors[2],
      `OWNER_POWERS_UNCHECKED: the functions of the implementation ${devnet.contracts.hostile.proxyImplementation} behind the proxy were not called as the owner`,
    );
    assert.deepEqual([json.sell_simulation.method, json.sell_simulation.ok, json.sell_simulation.sell_tax_bps], ['venue_v4', true, 0]);
  });

  it('warns on the bare UUPS implementation: upgrade code with DELEGATECALL, no pool and no holder, so a balance by state override', async () => {
    const { json } = await check(devnet.contracts.hostile.proxyImplementation);
    assert.equal(json.severity, 'warn');
    assert.deepEqual(codes(json.risk_factors), ['DELEGATECALL', 'ADVISORY: MINT_CAPABILITY']);
    assert.match(json.risk_factors[0], /upgradeToAndCall\(address,bytes\)/);
    const sell = json.sell_simulation;
    assert.deepEqual([sell.method, sell.sold_via, sell.ok, sell.bought, sell.buy_ok], ['state_override', 'transfer', true, ONE_TOKEN, null]);
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
      assert.deepEqual([json.is_honeypot, json.sell_simulation.ok, json.sell_simulation.buy_tax_bps, json.sell_simulation.sell_tax_bps], [false, true, 0, 0]);
    }
  });

  it('buys and sells stocks through their pools, and takes tokens without one from a real holder', async () => {
    const stock = (await check(running.service.registry.bySymbol('TSLA')!.contract_address)).json.sell_simulation;
    assert.deepEqual([stock.method, stock.sold_via], ['venue_v4', 'venue_v4']);
    // 100 USD of stablecoin buys about 0.285 TSLA at 350.25 USD; selling it back returns about 99.4 USD after two 0.3% fees.
    assert.ok(Number(stock.received) > 99_000_000 && Number(stock.received) < 100_000_000, stock.received);
    const stable = (await check(devnet.contracts.stablecoin)).json.sell_simulation;
    assert.deepEqual([stable.method, stable.sold_via, stable.buy_tax_bps, stable.sell_tax_bps], ['holder_transfer', 'transfer', 0, 0]);
    assert.equal(stable.paid, stable.amount_in);
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
      const store = own.service.store as LmdbStore;
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
