// Prices and daily P&L on the devnet: oracle, venue, fallbacks, staleness, deviation, coalescing, and a service on RPC_URL.
import type { PriceFact } from '../../src/risk/types.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { erc20Abi, parseAbi, parseUnits, type Address, type PublicClient } from 'viem';
import { createChainClient } from '../../src/chain/public-client.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { OraclePriceProvider } from '../../src/prices/oracle-price.js';
import { OracleWithVenueCheck } from '../../src/prices/oracle-with-venue.js';
import { ChainedPriceProvider, DefaultPriceProvider, UNAVAILABLE } from '../../src/prices/price-provider.js';
import { VenuePriceProvider } from '../../src/prices/venue-price.js';
import { loadRegistryFile, type Registry, type RegistryAsset } from '../../src/registry/registry.js';
import { walletClientFor } from '../support/devnet-helpers.js';
import { ManualClock } from '../support/manual-clock.js';
import { postJson, startTestService, type TestService } from '../support/service.js';
import { CountingProxy, postBurst, timed, writeRegistryFile } from './chain-support.js';

// Starts on Tuesday 17 November 2026, 10:00 in New York: the session is open, so no MARKET_CLOSED noise.
// The service and the price sources read this clock, so the tests move it past the caches instead of sleeping.
const clock = new ManualClock();
/** Past the 2 s price and daily P&L caches. */
const PAST_CACHES_MS = 2_100;
let devnet: Devnet;
let proxy: CountingProxy;
let client: PublicClient;
let registry: Registry;
let dir: string;

const feedAbi = parseAbi(['function updateAnswer(int256 answer)']);

before(async () => {
  devnet = await startDevnet();
  proxy = await CountingProxy.start(devnet.rpcUrl);
  client = createChainClient(proxy.url);
  dir = mkdtempSync(join(tmpdir(), 'chain-prices-'));
  registry = await loadRegistryFile(writeRegistryFile(devnet, dir));
});

after(async () => {
  await proxy?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

function sources(options: { maxAgeSeconds?: number; rpc?: PublicClient } = {}) {
  const on = options.rpc ?? client;
  const oracle = new OraclePriceProvider(on, { multicall3: registry.multicall3, now: clock.now, maxAgeSeconds: options.maxAgeSeconds });
  const venue = new VenuePriceProvider(on, registry.venue!, { multicall3: registry.multicall3, now: clock.now });
  return { oracle, venue, chain: new ChainedPriceProvider([new OracleWithVenueCheck(oracle, venue), new DefaultPriceProvider()]) };
}

const asset = (symbol: string, patch: Partial<RegistryAsset> = {}): RegistryAsset => ({ ...registry.bySymbol(symbol)!, ...patch });

async function setFeed(symbol: string, usd: number): Promise<void> {
  const wallet = walletClientFor(devnet, devnet.deployerPrivateKey);
  const answer = BigInt(Math.round(usd * 1e8));
  const hash = await wallet.writeContract({ address: devnet.contracts.aggregators[symbol], abi: feedAbi, functionName: 'updateAnswer', args: [answer] });
  assert.equal((await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status, 'success');
}

/** What the engine scores; where the price came from (`origin`) is checked on its own. */
const scored = ({ origin: _origin, ...fact }: PriceFact) => fact;

describe('price sources on the devnet', () => {
  it('reads every oracle with its decimals and checks it against the venue pool', async () => {
    const { chain, venue } = sources();
    for (const { symbol, default_price_usd } of registry.assets) {
      const fact = await chain.quote(asset(symbol));
      assert.deepEqual(scored(fact), { usd: default_price_usd, source: 'oracle', stale: symbol === 'MSFT', deviationBps: 0 }, symbol);
      const pool = await venue.reading(asset(symbol));
      // The audit record keeps the round and the block it was read at, with the venue's price beside it.
      assert.equal(fact.origin?.kind, 'oracle');
      if (fact.origin?.kind === 'oracle') {
        assert.equal(fact.origin.feed, asset(symbol).price_feed!.toLowerCase());
        assert.ok(fact.origin.block_number > 0 && Number(fact.origin.round_id) > 0 && fact.origin.updated_at > 0);
        assert.equal(fact.origin.venue?.price_usd, pool?.usd);
      }
      assert.ok(pool && Math.abs(pool.usd / default_price_usd! - 1) < 1e-6, `${symbol} venue ${pool?.usd}`);
    }
  });

  it('marks the three-day-old MSFT round stale under the 1 h limit, fresh under a 4-day limit', async () => {
    assert.equal((await sources().oracle.quote(asset('MSFT'))).stale, true);
    assert.deepEqual(scored(await sources({ maxAgeSeconds: 4 * 86_400 }).oracle.quote(asset('MSFT'))), {
      usd: 432.55, source: 'oracle', stale: false, deviationBps: null,
    });
  });

  it('falls to the venue when the asset has no feed, its feed reverts, or it answers a non-positive value', async () => {
    const venuePrice = { source: 'venue_v4', stale: false, deviationBps: null };
    const noFeed = await sources().chain.quote(asset('AMZN', { price_feed: null }));
    assert.deepEqual({ ...scored(noFeed), usd: Math.round(noFeed.usd * 100) / 100 }, { usd: 214.3, ...venuePrice });
    assert.equal(noFeed.origin?.kind, 'venue_v4');
    // The stablecoin has no latestRoundData: the call reverts.
    const reverting = await sources().chain.quote(asset('AMZN', { price_feed: devnet.contracts.stablecoin }));
    assert.equal(reverting.source, 'venue_v4');
    await setFeed('AMZN', 0);
    try {
      assert.equal((await sources().chain.quote(asset('AMZN'))).source, 'venue_v4');
    } finally {
      await setFeed('AMZN', 214.3);
    }
  });

  it('reports oracle-venue disagreement in basis points', async () => {
    await setFeed('AAPL', 229.87 * 1.05);
    try {
      assert.deepEqual(scored(await sources().chain.quote(asset('AAPL'))), { usd: 241.3635, source: 'oracle', stale: false, deviationBps: 476 });
    } finally {
      await setFeed('AAPL', 229.87);
    }
  });

  it('uses the registry default without feed or pool, and is unavailable without a default', async () => {
    const stranger = asset('TSLA', { symbol: 'ZZZ', contract_address: '0x000000000000000000000000000000000000dEaD', price_feed: null });
    assert.deepEqual(await sources().chain.quote(stranger), {
      usd: 350.25, source: 'fallback_default', stale: false, deviationBps: null, origin: { kind: 'default', price_usd: 350.25 },
    });
    assert.deepEqual(await sources().chain.quote({ ...stranger, default_price_usd: null }), UNAVAILABLE);
  });

  it('coalesces 1,000 concurrent quotes of one asset into one RPC call per source', async () => {
    const { chain } = sources();
    proxy.reset();
    const facts = await Promise.all(Array.from({ length: 1000 }, () => chain.quote(asset('TSLA'))));
    assert.equal(new Set(facts.map((fact) => JSON.stringify(fact))).size, 1);
    assert.deepEqual(proxy.calls.map((call) => call.method), ['eth_call', 'eth_call']);
  });

  it('answers unavailable, not the registry default, when the node does not answer', async () => {
    const dead = createChainClient('http://127.0.0.1:9'); // discard port: nothing listens
    const { value, ms } = await timed(() => sources({ rpc: dead }).chain.quote(asset('TSLA')));
    assert.deepEqual(value, UNAVAILABLE);
    assert.ok(ms < 2_500, `answered in ${ms} ms`);
  });
});

describe('evaluations on a node given by RPC_URL and REGISTRY_FILE', () => {
  let running: TestService;
  const free = () => `${running.base}/api/v1/analyze/free`;
  const trade = (wallet: string, symbol: string, amount = 1) => ({
    wallet, asset: symbol, contract_address: registry.bySymbol(symbol)!.contract_address, side: 'buy', amount,
  });

  before(async () => {
    const file = writeRegistryFile(devnet, dir);
    running = await startTestService({ RPC_URL: proxy.url, REGISTRY_FILE: file, RATE_LIMITS: 'off' }, undefined, { now: clock.now });
  });
  after(() => running?.stop());
  // Each test reads the chain afresh: no price or P&L an earlier test left in the service's caches.
  beforeEach(() => clock.advance(PAST_CACHES_MS));

  it('makes one RPC call per source for a burst of 1,000 evaluations of one asset', async (t) => {
    const wallet = '0x00000000000000000000000000000000000b0a57';
    proxy.reset();
    const { value: answers, ms } = await timed(() => postBurst(free(), Array.from({ length: 1000 }, () => trade(wallet, 'TSLA'))));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual([answer.json.decision, answer.json.price_source, answer.json.price_usd], ['allow', 'oracle', 350.25]);
    }
    // The oracle read, the venue read, and the wallet's holdings (which hold nothing to price).
    assert.deepEqual(proxy.calls.map((call) => call.method), ['eth_call', 'eth_call', 'eth_call']);
    t.diagnostic(`1,000 concurrent evaluations in ${Math.round(ms)} ms with ${proxy.calls.length} RPC requests`);
  });

  it('puts oracle-venue disagreement in the verdict', async () => {
    await setFeed('NVDA', 181.4 * 1.05);
    try {
      const verdict = await postJson(free(), trade('0x00000000000000000000000000000000000d0e57', 'NVDA'));
      assert.deepEqual([verdict.json.price_source, verdict.json.price_usd], ['oracle', 190.47]);
      assert.ok(verdict.json.reasons.includes('PRICE_DEVIATION: oracle and venue prices differ by 476 bps (threshold 200 bps)'), verdict.text);
    } finally {
      // Restored, as the other feed tests do; the next test's clock step drops the moved price from the caches.
      await setFeed('NVDA', 181.4);
    }
  });

  it('marks holdings to market against the first snapshot of the UTC day and denies at the daily loss limit', async () => {
    const holder = devnet.wallets[0];
    const first = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.deepEqual([first.json.decision, first.json.daily_pnl_usd], ['allow', 0]);
    // 10 SPY (6,011 USD) leave the wallet: a loss above the Tier 1 daily limit of 5,000 USD.
    const spy = registry.bySymbol('SPY')!.contract_address as Address;
    const hash = await walletClientFor(devnet, holder.privateKey).writeContract({
      address: spy, abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', parseUnits('10', 18)],
    });
    assert.equal((await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status, 'success');
    clock.advance(PAST_CACHES_MS); // past the 2 s holdings cache
    const after = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.equal(after.json.daily_pnl_usd, -6011);
    assert.equal(after.json.decision, 'deny');
    assert.ok(after.json.reasons.includes('DAILY_LOSS_LIMIT: daily loss of 6,011 USD reaches the Tier 1 limit of 5,000 USD'), after.text);
    clock.advance(86_400_000); // the next UTC day starts from a new snapshot
    const nextDay = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.deepEqual([nextDay.json.decision, nextDay.json.daily_pnl_usd], ['allow', 0]);
  });

});
