// Chain-fact logic that needs no node: bytecode scanning, safety rules, price composition, pool math, amounts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getAddress, HttpRequestError, toFunctionSelector, type Address } from 'viem';
import { plainDecimal } from '../../../src/facts/chain/balance-simulation.js';
import { candidateSlots } from '../../../src/facts/chain/balance-slot.js';
import { ChainUnavailableError, describeCause } from '../../../src/facts/chain/errors.js';
import { quotePerToken, venuePoolKey } from '../../../src/facts/chain/venue-pool.js';
import { poolKeyFor, sqrtPriceX96For } from '../../../src/tools/devnet/pricing.js';
import type { OraclePriceProvider, OracleReading } from '../../../src/facts/prices/oracle-price.js';
import { deviationBps, OracleWithVenueCheck } from '../../../src/facts/prices/oracle-with-venue.js';
import { ChainedPriceProvider, DefaultPriceProvider, UNAVAILABLE } from '../../../src/facts/prices/price-provider.js';
import type { VenuePriceProvider, VenueReading } from '../../../src/facts/prices/venue-price.js';
import type { RegistryAsset, Venue } from '../../../src/facts/registry/registry.js';
import { scanBytecode } from '../../../src/facts/safety/bytecode.js';
import type { ContractFacts, OwnerFacts } from '../../../src/facts/safety/contract-facts.js';
import { capabilitiesOf, type Capability } from '../../../src/facts/safety/selectors.js';
import type { SellSimulation, SimulatedSell } from '../../../src/facts/safety/sell-simulation.js';
import { classify } from '../../../src/facts/safety/severity.js';

const TOKEN = '0x1111111111111111111111111111111111111111' as Address;
const OWNER = '0x2222222222222222222222222222222222222222' as Address;
const sel = (signature: string) => toFunctionSelector(`function ${signature}`).slice(2);

describe('bytecode scan', () => {
  it('finds PUSH4 selectors and real DELEGATECALL / SELFDESTRUCT instructions only', () => {
    // PUSH4 mint; PUSH32 whose data holds f4 and ff; PUSH3 of a selector with a leading zero byte; STOP
    const data = 'f4ff'.repeat(16);
    const code = `0x63${sel('mint(address,uint256)')}7f${data}62abcdef00` as const;
    const scan = scanBytecode(code);
    assert.deepEqual([...scan.selectors].sort(), ['0x00abcdef', `0x${sel('mint(address,uint256)')}`].sort());
    assert.equal(scan.delegatecall, false);
    assert.equal(scan.selfdestruct, false);
    assert.equal(scanBytecode('0x6001f400').delegatecall, true);
    assert.equal(scanBytecode('0x6001ff').selfdestruct, true);
  });

  it('ignores solc metadata, which may hold any byte', () => {
    const metadata = 'a2' + 'ff'.repeat(8) + 'f4'.repeat(4);
    const length = (metadata.length / 2).toString(16).padStart(4, '0');
    const scan = scanBytecode(`0x600100${metadata}${length}`);
    assert.equal(scan.selfdestruct, false);
    assert.equal(scan.delegatecall, false);
  });

  it('recognises an EIP-1167 clone and its target', () => {
    const target = 'bebebebebebebebebebebebebebebebebebebebe';
    const scan = scanBytecode(`0x363d3d373d3d3d363d73${target}5af43d82803e903d91602b57fd5bf3`);
    assert.equal(scan.cloneOf?.toLowerCase(), `0x${target}`);
  });

  it('groups privileged selectors by capability with their signatures', () => {
    const selectors = new Set([`0x${sel('pause()')}`, `0x${sel('blacklist(address)')}`, `0x${sel('transfer(address,uint256)')}`]);
    assert.deepEqual(Object.fromEntries(capabilitiesOf(selectors)), { pause: ['pause()'], blacklist: ['blacklist(address)'] });
  });
});

function facts(patch: Partial<ContractFacts> = {}): ContractFacts {
  const owner: OwnerFacts = { kind: 'eoa', address: OWNER, threshold: null, signers: null };
  return { address: TOKEN, hasCode: true, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, owner, decimals: 18, ...patch };
}

function sold(patch: Partial<SellSimulation> = {}): SellSimulation {
  return {
    ok: true, simulated: true, not_a_token: false, method: 'venue_v4', sold_via: 'venue_v4', probe: OWNER, bought: '1000', amount_in: '1000',
    paid: '1000', received: '1', buy_tax_bps: 0, sell_tax_bps: 0, tax_bps: 0, buy_ok: true, sell_fresh_ok: true, sell_held_ok: true,
    wallet_transfer_ok: true, own_transfer_ok: true, sized_sell_ok: true, sized_sell_amount: '5000', transfer_from_ok: true, sells: sellsOf([true, true, true, true]), owner_powers: [], base_fee_wei: '1000000000', gas_price_wei: '2000000000',
    revert_reason: null, detail: 'sold', ...patch,
  };
}

/** Sells at once and after 1, 7 and 30 days: `transfer` by transfer, `pull` by approve and transferFrom, `taxes` per time. */
function sellsOf(transfer: boolean[], pull: boolean[] = transfer, taxes: number[] = [0, 0, 0, 0]): SimulatedSell[] {
  const days = [0, 1, 7, 30];
  return days.flatMap((day, i) => ([['transfer', transfer[i]], ['transfer_from', pull[i]]] as const).map(([via, ok]) => ({
    held_seconds: day * 86_400, held_blocks: day * 7_200, via, ok, sell_tax_bps: ok ? taxes[i] : null,
  })));
}

const codes = (factors: string[]) => factors.map((factor) => factor.replace(/^ADVISORY: /, 'ADVISORY:').split(':').slice(0, factor.startsWith('ADVISORY') ? 2 : 1).join(':'));

describe('token-safety rules', () => {
  it('calls an address without code dangerous', () => {
    assert.deepEqual(classify({ facts: facts({ hasCode: false }), sell: null, listed: false }), {
      severity: 'danger',
      is_honeypot: false,
      risk_factors: [`NO_CODE: no contract code at ${TOKEN}; it is not a token`],
    });
  });

  it('calls a token bought but not sold a honeypot (danger), whichever sell reverts', () => {
    const blocked = { ok: false, paid: null, sell_tax_bps: null, tax_bps: null, revert_reason: 'TransferNotAllowed' };
    const result = classify({ facts: facts(), sell: sold({ ...blocked, sell_fresh_ok: false, sell_held_ok: false, sells: sellsOf([false, false, false, false]) }), listed: false });
    assert.deepEqual([result.severity, result.is_honeypot], ['danger', true]);
    assert.deepEqual(result.risk_factors, [
      'HONEYPOT: a holder that bought through the venue pool could not sell: its sell into the venue pool reverted at once and after holding 1, 7 and 30 days (TransferNotAllowed); transfers to a wallet go through, so the block is on selling; holders cannot sell',
    ]);
    const later = classify({ facts: facts(), sell: sold({ ...blocked, sell_held_ok: false, wallet_transfer_ok: false, sells: sellsOf([true, false, false, false]) }), listed: false });
    assert.deepEqual([later.severity, later.is_honeypot], ['danger', true]);
    assert.match(later.risk_factors[0], /^HONEYPOT: .* went through at once but reverted after holding 1, 7 and 30 days \(TransferNotAllowed\); holders cannot sell$/);
  });

  it('calls a token that sells by transfer but not through a router (approve and transferFrom) a honeypot, naming the path', () => {
    const sells = sellsOf([true, true, true, true], [false, false, false, false]);
    const result = classify({ facts: facts(), sell: sold({ ok: false, transfer_from_ok: false, sell_fresh_ok: false, sell_held_ok: false, sells, revert_reason: 'NotNow' }), listed: false });
    assert.deepEqual([result.severity, result.is_honeypot], ['danger', true]);
    assert.equal(result.risk_factors[0], 'HONEYPOT: a holder that bought through the venue pool could not sell: its sell into the venue pool by approve and transferFrom (as routers sell) reverted at once and after holding 1, 7 and 30 days (NotNow); transfers to a wallet go through, so the block is on selling; holders cannot sell');
  });

  it('calls a trap that closes after a few days a honeypot, and a lock that opens after a week a delay', () => {
    const trap = classify({ facts: facts(), sell: sold({ ok: false, sell_held_ok: false, sells: sellsOf([true, true, false, false]), revert_reason: 'NotNow' }), listed: false });
    assert.deepEqual([trap.severity, trap.is_honeypot], ['danger', true]);
    assert.match(trap.risk_factors[0], /its sell into the venue pool went through at once and after holding 1 day but reverted after holding 7 and 30 days \(NotNow\)/);
    const opens = classify({ facts: facts(), sell: sold({ ok: false, sell_fresh_ok: false, sells: sellsOf([false, false, true, true]), revert_reason: 'CooldownActive' }), listed: false });
    assert.deepEqual([opens.severity, opens.is_honeypot, codes(opens.risk_factors)], ['warn', false, ['SELL_DELAYED']]);
    assert.match(opens.risk_factors[0], /could not sell into the venue pool at once \(CooldownActive\) but could after holding 7 days;/);
  });

  it('calls a trap that closes at some hours of the day a honeypot, naming the holds in their units', () => {
    const at = [0, 12, 6 * 3_600, 12 * 3_600, 18 * 3_600, 86_400];
    const open = [true, true, true, false, false, true];
    const sells = at.flatMap((seconds, i) => (['transfer', 'transfer_from'] as const).map((via) => ({ held_seconds: seconds, held_blocks: 0, via, ok: open[i], sell_tax_bps: open[i] ? 0 : null })));
    const trap = classify({ facts: facts(), sell: sold({ ok: false, sell_held_ok: false, sells, revert_reason: 'ClosedNow' }), listed: false });
    assert.deepEqual([trap.severity, trap.is_honeypot], ['danger', true]);
    assert.match(trap.risk_factors[0], /went through at once and after holding 12 seconds, 6 hours and 1 day but reverted after holding 12 and 18 hours \(ClosedNow\)/);
  });

  it('judges the worst sell: a tax that starts after launch is named with the hold that met it', () => {
    const late = classify({ facts: facts(), sell: sold({ sell_tax_bps: 9900, tax_bps: 9900, sells: sellsOf([true, true, true, true], undefined, [0, 9900, 9900, 9900]) }), listed: false });
    assert.deepEqual([late.severity, late.is_honeypot], ['danger', false]);
    assert.deepEqual(late.risk_factors, ['SELL_TAX_EXTREME: a simulated sell into the venue pool after holding 1 day delivered 1% of the tokens sent (9900 bps taken on transfer)']);
  });

  it('warns on a sell locked only for a while, a refused buy and a refused wallet transfer', () => {
    const delayed = classify({ facts: facts(), sell: sold({ ok: false, sell_fresh_ok: false, revert_reason: 'CooldownActive', sells: sellsOf([false, true, true, true]) }), listed: false });
    assert.deepEqual([delayed.severity, delayed.is_honeypot, codes(delayed.risk_factors)], ['warn', false, ['SELL_DELAYED']]);
    const refused = classify({ facts: facts(), sell: sold({ method: 'state_override', buy_ok: false, buy_tax_bps: null }), listed: false });
    assert.deepEqual([refused.severity, codes(refused.risk_factors)], ['warn', ['BUY_REVERTS']]);
    const wallet = classify({ facts: facts(), sell: sold({ wallet_transfer_ok: false }), listed: false });
    assert.deepEqual([wallet.severity, codes(wallet.risk_factors)], ['warn', ['TRANSFER_BLOCKED']]);
  });

  it('calls a token a honeypot when a wallet without code cannot send it, though every holder with code sold', () => {
    const refused = classify({ facts: facts(), sell: sold({ ok: false, own_transfer_ok: false, revert_reason: 'Error(no code)' }), listed: false });
    assert.deepEqual([refused.severity, refused.is_honeypot, codes(refused.risk_factors)], ['danger', true, ['HONEYPOT']]);
    assert.match(refused.risk_factors[0], /wallet without code .* own transfer after holding 30 days \(Error\(no code\)\)/);
    const delayed = classify({ facts: facts(), sell: sold({ ok: false, own_transfer_ok: false, sell_fresh_ok: false, sells: sellsOf([false, true, true, true]) }), listed: false });
    assert.deepEqual([delayed.severity, delayed.is_honeypot, codes(delayed.risk_factors)], ['danger', true, ['HONEYPOT', 'SELL_DELAYED']]);
    const unfunded = classify({ facts: facts(), sell: sold({ own_transfer_ok: null }), listed: false });
    assert.deepEqual([unfunded.severity, unfunded.is_honeypot], ['safe', false]);
  });

  it('calls a token a honeypot when a sell of a share of the pool\'s depth reverts though smaller sells went through', () => {
    const refused = classify({ facts: facts(), sell: sold({ ok: false, sized_sell_ok: false, revert_reason: 'AmountOverLimit' }), listed: false });
    assert.deepEqual([refused.severity, refused.is_honeypot, codes(refused.risk_factors)], ['danger', true, ['HONEYPOT']]);
    assert.match(refused.risk_factors[0], /a sell of 5000 base units at once \(5% of the token's side of the pool\) reverted/);
    // Sells that fail at once whatever their size are the timeline's to judge: locked for a while, not a size trap.
    const locked = classify({ facts: facts(), sell: sold({ ok: false, sell_fresh_ok: false, sized_sell_ok: false, sells: sellsOf([false, true, true, true]) }), listed: false });
    assert.deepEqual([locked.severity, locked.is_honeypot, codes(locked.risk_factors)], ['warn', false, ['SELL_DELAYED']]);
  });

  it('grades buy and sell taxes apart: up to 1% nothing, above 1% warn, above 30% danger', () => {
    const grade = (tax: number) => classify({ facts: facts(), sell: sold({ sell_tax_bps: tax, tax_bps: tax }), listed: false });
    assert.equal(grade(100).severity, 'safe');
    assert.deepEqual(grade(1000), {
      severity: 'warn',
      is_honeypot: false,
      risk_factors: ['SELL_TAX: a simulated sell into the venue pool delivered 90% of the tokens sent (1000 bps taken on transfer)'],
    });
    assert.equal(grade(3000).severity, 'warn');
    assert.equal(grade(3001).severity, 'danger');
    assert.match(grade(9000).risk_factors[0], /^SELL_TAX_EXTREME: .* delivered 10% /);
    const buy = classify({ facts: facts(), sell: sold({ buy_tax_bps: 5000 }), listed: false });
    assert.deepEqual([buy.severity, buy.risk_factors], ['danger', ['BUY_TAX_EXTREME: a simulated buy delivered 50% of the tokens sent (5000 bps taken on transfer)']]);
  });

  it('warns on privileged functions a single key controls, and excuses them when renounced', () => {
    const capabilities = new Map<Capability, string[]>([['mint', ['mint(address,uint256)']], ['pause', ['pause()']]]);
    const live = classify({ facts: facts({ capabilities: new Map(capabilities) }), sell: sold(), listed: false });
    assert.equal(live.severity, 'warn');
    assert.deepEqual(codes(live.risk_factors), ['MINT_CAPABILITY', 'PAUSE_CAPABILITY']);
    const renounced = facts({ capabilities: new Map(capabilities), owner: { kind: 'renounced', address: null, threshold: null, signers: null } });
    const inert = classify({ facts: renounced, sell: sold(), listed: false });
    assert.equal(inert.severity, 'safe');
    assert.deepEqual(codes(inert.risk_factors), ['ADVISORY:MINT_CAPABILITY', 'ADVISORY:PAUSE_CAPABILITY']);
  });

  it('does not excuse a renounced owner beside a live admin, and names what the admin did', () => {
    const capabilities = new Map<Capability, string[]>([['pause', ['pause()']]]);
    const renounced = facts({ capabilities, owner: { kind: 'renounced', address: null, threshold: null, signers: null } });
    const keeper = '0x3000000000000000000000000000000000000003' as const;
    const admins = [{ address: keeper, source: 'held in storage slot 6', functions: ['pause()', 'the unlisted function 0x12345678'], powers: [{ selector: '0x12345678', signature: null, effect: 'took' as const }] }];
    const result = classify({ facts: renounced, sell: sold(), listed: false, admins });
    assert.equal(result.severity, 'danger');
    assert.deepEqual(codes(result.risk_factors), ['ADMIN_CAN_SEIZE', 'OTHER_ADMIN', 'PAUSE_CAPABILITY']);
    assert.equal(result.risk_factors[1], `OTHER_ADMIN: ${keeper} (held in storage slot 6), not owner(), gets through pause(), the unlisted function 0x12345678, which refuse a stranger making the same call; owner() is renounced, but this admin is live`);
    assert.equal(result.risk_factors[2], `PAUSE_CAPABILITY: pause() let the admin ${keeper} beside the renounced owner stop all transfers`);
    const issuer = classify({ facts: renounced, sell: sold(), listed: true, admins });
    assert.equal(issuer.severity, 'safe');
  });

  it('excuses mint under a multisig owner but not pause', () => {
    const owner: OwnerFacts = { kind: 'multisig', address: OWNER, threshold: 2, signers: 3 };
    const result = classify({ facts: facts({ owner, capabilities: new Map<Capability, string[]>([['mint', ['mint(uint256)']], ['pause', ['pause()']]]) }), sell: sold(), listed: false });
    assert.equal(result.severity, 'warn');
    assert.deepEqual(codes(result.risk_factors), ['PAUSE_CAPABILITY', 'ADVISORY:MINT_CAPABILITY']);
    assert.match(result.risk_factors[1], /2-of-3 multisig/);
  });

  it('warns on an upgradeable proxy, SELFDESTRUCT and DELEGATECALL, never on a fixed clone', () => {
    const proxy = { kind: 'eip1967' as const, implementation: OWNER, admin: null };
    const result = classify({ facts: facts({ proxy, selfdestruct: true, delegatecall: true }), sell: sold(), listed: false });
    assert.deepEqual(codes(result.risk_factors), ['UPGRADEABLE_PROXY', 'SELFDESTRUCT', 'DELEGATECALL']);
    const clone = classify({ facts: facts({ proxy: { ...proxy, kind: 'clone' } }), sell: sold(), listed: false });
    assert.equal(clone.severity, 'safe');
  });

  it("treats the registry's own issuer controls as advisory, but never its behaviour", () => {
    const capabilities = new Map<Capability, string[]>([['mint', ['mint(address,uint256)']]]);
    const listed = classify({ facts: facts({ capabilities: new Map(capabilities) }), sell: sold(), listed: true });
    assert.equal(listed.severity, 'safe');
    assert.match(listed.risk_factors[0], /^ADVISORY: MINT_CAPABILITY: .*\(a registry issuer control\)$/);
    const trap = classify({ facts: facts(), sell: sold({ ok: false, sell_fresh_ok: false, sell_held_ok: false, sells: sellsOf([false, false, false, false]), revert_reason: 'EnforcedPause' }), listed: true });
    assert.equal(trap.severity, 'danger');
  });

  it('warns when no sell could be simulated and calls a contract without balanceOf no token', () => {
    const unsimulated = sold({ ok: false, simulated: false, detail: 'no slot' });
    assert.deepEqual(classify({ facts: facts(), sell: unsimulated, listed: false }).risk_factors, [
      'SELL_NOT_SIMULATED: no slot; the token may not be sellable',
    ]);
    const notToken = classify({ facts: facts(), sell: { ...unsimulated, not_a_token: true }, listed: false });
    assert.equal(notToken.severity, 'danger');
    assert.match(notToken.risk_factors[0], /^NOT_A_TOKEN: /);
  });
});

const ASSET: RegistryAsset = {
  symbol: 'TSLA', contract_address: TOKEN, decimals: 18, is_native: false, price_feed: OWNER, default_price_usd: 300,
};

/**
 * The chained prices over stub readers. `atHand`: the readers also say what this block's readings
 * are without a read (a failed read is never kept, so it is never at hand), as after the block's
 * first request.
 */
function composition(oracle: OracleReading | null | Error, venue: VenueReading | null | Error, atHand = false) {
  const answer = <T>(value: T | Error) => (value instanceof Error ? Promise.reject(value) : Promise.resolve(value));
  const known = <T>(value: T | Error) => (atHand && !(value instanceof Error) ? { value } : undefined);
  const o = { reading: () => answer(oracle), knownReading: () => known(oracle) } as unknown as OraclePriceProvider;
  const v = { reading: () => answer(venue), knownReading: () => known(venue) } as unknown as VenuePriceProvider;
  return new ChainedPriceProvider([new OracleWithVenueCheck(o, v), new DefaultPriceProvider()]);
}

describe('price composition', () => {
  const down = () => new ChainUnavailableError('oracle read', new Error('fetch failed'));
  const round = { kind: 'oracle', feed: '0xfeed', round_id: '7', answer: '10000000000', decimals: 8, updated_at: 1_700_000_000, block_number: 12 } as const;
  const pool = { pool_id: '0xpool', price_usd: 103 };

  it('prefers the oracle and measures the venue against it', async () => {
    assert.deepEqual(await composition({ usd: 100, stale: false, ageSeconds: 5, origin: round }, { usd: 103, liquidity: 1n, poolId: '0xpool' }).quote(ASSET), {
      usd: 100, source: 'oracle', stale: false, deviationBps: 300, alternative: { usd: 103, source: 'venue_v4' }, origin: { ...round, venue: pool },
    });
  });

  it('keeps a stale oracle as the oracle, flagged, when no pool prices the asset', async () => {
    assert.deepEqual(await composition({ usd: 100, stale: true, ageSeconds: 9e5, origin: round }, null).quote(ASSET), {
      usd: 100, source: 'oracle', stale: true, deviationBps: null, alternative: null, origin: round,
    });
  });

  it('quotes the pool beside a stale oracle, keeping the round as the alternative (ARCHITECTURE.md "Prices that disagree")', async () => {
    assert.deepEqual(await composition({ usd: 100, stale: true, ageSeconds: 9e5, origin: round }, { usd: 103, liquidity: 1n, poolId: '0xpool' }).quote(ASSET), {
      usd: 103, source: 'venue_v4', stale: true, deviationBps: 300, alternative: { usd: 100, source: 'oracle' }, origin: { ...round, venue: pool },
    });
  });

  it('falls to the venue, then the registry default, then unavailable', async () => {
    assert.deepEqual(await composition(null, { usd: 99.5, liquidity: 1n, poolId: '0xpool' }).quote(ASSET), {
      usd: 99.5, source: 'venue_v4', stale: false, deviationBps: null, alternative: null, origin: { kind: 'venue_v4', pool_id: '0xpool', price_usd: 99.5 },
    });
    assert.deepEqual(await composition(null, null).quote(ASSET), {
      usd: 300, source: 'fallback_default', stale: false, deviationBps: null, origin: { kind: 'default', price_usd: 300 },
    });
    assert.deepEqual(await composition(null, null).quote({ ...ASSET, default_price_usd: null }), UNAVAILABLE);
  });

  it('answers unavailable, never the default, when the node does not answer', async () => {
    assert.deepEqual(await composition(down(), down()).quote(ASSET), UNAVAILABLE);
    assert.deepEqual(await composition(down(), null).quote(ASSET), UNAVAILABLE);
    // One source answered: its price stands.
    assert.equal((await composition(down(), { usd: 99, liquidity: 1n, poolId: '0xpool' }).quote(ASSET)).source, 'venue_v4');
  });

  it('answers the same whether this block\'s readings are at hand or read', async () => {
    const live = { usd: 100, stale: false, ageSeconds: 5, origin: round };
    const stale = { usd: 100, stale: true, ageSeconds: 9e5, origin: round };
    const venue = { usd: 103, liquidity: 1n, poolId: '0xpool' as const };
    const cases: [OracleReading | null | Error, VenueReading | null | Error, RegistryAsset][] = [
      [live, venue, ASSET], [stale, null, ASSET], [stale, venue, ASSET], [null, venue, ASSET], [null, null, ASSET],
      [null, null, { ...ASSET, default_price_usd: null }], [down(), down(), ASSET], [down(), null, ASSET], [down(), venue, ASSET], [live, down(), ASSET],
    ];
    for (const [oracle, pool, asset] of cases) {
      const read = await composition(oracle, pool).quote(asset);
      assert.deepEqual(await composition(oracle, pool, true).quote(asset), read);
      // What the evaluation takes without a promise is that same fact, and nothing while a reading is still to come.
      const failed = oracle instanceof Error || pool instanceof Error;
      assert.deepEqual(composition(oracle, pool, true).known(asset), failed ? undefined : read);
      assert.equal(composition(oracle, pool).known(asset), undefined);
    }
  });

  it('rounds deviation to whole basis points', () => {
    assert.equal(deviationBps(350.25, 350.25), 0);
    assert.equal(deviationBps(367.7625, 350.25), 476);
  });
});

describe('venue pool math', () => {
  const venue: Venue = {
    state_view: OWNER, pool_manager: OWNER, quote_token: { address: getAddress('0x00000000000000000000000000000000000000aa'), decimals: 6 },
    fee: 3000, tick_spacing: 60, hooks: '0x0000000000000000000000000000000000000000',
  };

  it('builds the same pool key as the devnet deployment', () => {
    for (const token of [TOKEN, '0x0000000000000000000000000000000000000001'] as Address[]) {
      const key = venuePoolKey(venue, token);
      assert.deepEqual(key, poolKeyFor(token, venue.quote_token.address as Address));
    }
    assert.equal(venuePoolKey(venue, venue.quote_token.address), null);
  });

  it('inverts sqrtPriceX96 on either side of the pool', () => {
    for (const [price, tokenIsCurrency0] of [[350.25, true], [350.25, false], [0.0123, true], [91234.5, false]] as const) {
      const usd = quotePerToken(sqrtPriceX96For(price, tokenIsCurrency0), tokenIsCurrency0, 18, 6);
      assert.ok(Math.abs(usd - price) / price < 1e-9, `${price} ${tokenIsCurrency0}: ${usd}`);
    }
  });
});

describe('amounts and errors', () => {
  it('writes JSON numbers as plain decimals for parseUnits', () => {
    assert.equal(plainDecimal(-2.5), '-2.5');
    assert.equal(plainDecimal(1e-7), '0.0000001');
    assert.equal(plainDecimal(-1.25e-8), '-0.0000000125');
    assert.equal(plainDecimal(1.5e21), '1500000000000000000000');
  });

  it('probes slots 0-64 in both mapping layouts plus the ERC-7201 namespace, or the hint in each', () => {
    assert.equal(candidateSlots(null).length, 65 * 2 + 1);
    assert.deepEqual(candidateSlots(3), [
      { slot: 3, layout: 'solidity' },
      { slot: 3, layout: 'vyper' },
      { slot: 3, layout: 'erc7201' },
    ]);
  });

  it('keeps RPC addresses (which may hold credentials) out of error messages', () => {
    const cause = new HttpRequestError({ url: 'https://user:secret@rpc.example/v2/KEY', details: 'fetch failed' });
    const message = new ChainUnavailableError('oracle read', cause).message;
    assert.equal(message.includes('secret'), false);
    assert.equal(message.includes('KEY'), false);
    assert.match(message, /^oracle read failed: HTTP request failed/);
    assert.equal(describeCause(new Error('see http://10.0.0.1:8545/abc')), 'see <rpc>');
  });
});
