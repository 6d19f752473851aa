// Prices and daily P&L on the devnet: oracle, venue, fallbacks, staleness, deviation, coalescing, facts that follow the chain by block, and a service on RPC_URL.
import type { PriceFact } from '../../../../src/risk/types.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, parseAbi, parseUnits, type Address, type PublicClient } from 'viem';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { openChainReads, webSocketUrlOf, type ChainReads } from '../../../../src/facts/chain/chain-reads.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { OraclePriceProvider } from '../../../../src/facts/prices/oracle-price.js';
import { OracleWithVenueCheck } from '../../../../src/facts/prices/oracle-with-venue.js';
import { ChainedPriceProvider, DefaultPriceProvider, UNAVAILABLE } from '../../../../src/facts/prices/price-provider.js';
import { VenuePriceProvider } from '../../../../src/facts/prices/venue-price.js';
import { loadRegistryFile, type Registry, type RegistryAsset } from '../../../../src/facts/registry/registry.js';
import { walletClientFor } from '../../../support/devnet-helpers.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { postJson, startTestService, type TestService } from '../../../support/service.js';
import { CountingProxy, postBurst, timed, writeRegistryFile } from '../../../support/chain-support.js';

// Starts on Tuesday 17 November 2026, 10:00 in New York: the session is open, so no MARKET_CLOSED noise.
// The service reads this clock; chain facts follow blocks, so the tests wait for a block to be seen, never on time.
const clock = new ManualClock();
let devnet: Devnet;
let proxy: CountingProxy;
let client: PublicClient;
let registry: Registry;
let dir: string;
/** The price sources' view of the chain: reads through the counting proxy, new heads streamed from anvil itself. */
let reads: ChainReads;
/** Heads that must have seen a block before a test reads on: this file's own, and a running service's. */
const watchers: ChainReads[] = [];

const feedAbi = parseAbi(['function updateAnswer(int256 answer)', 'function updateRoundData(int256 answer, uint256 updatedAt)']);

before(async () => {
  // Blocks only on transactions: the tests count RPC calls and re-reads per block, which a timed block would add to.
  devnet = await startDevnet({ blockTimeSeconds: 0 });
  proxy = await CountingProxy.start(devnet.rpcUrl);
  client = createChainClient(proxy.url);
  dir = mkdtempSync(join(tmpdir(), 'chain-prices-'));
  registry = await loadRegistryFile(writeRegistryFile(devnet, dir));
  reads = await openChainReads(client, registry, { wsUrl: webSocketUrlOf(devnet.rpcUrl), log: () => undefined });
  watchers.push(reads);
});

after(async () => {
  reads?.close();
  await proxy?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

function sources(options: { maxAgeSeconds?: number; on?: ChainReads } = {}) {
  const on = options.on ?? reads;
  const oracle = new OraclePriceProvider(on, { maxAgeSeconds: options.maxAgeSeconds });
  const venue = new VenuePriceProvider(on, registry.venue!);
  return { oracle, venue, chain: new ChainedPriceProvider([new OracleWithVenueCheck(oracle, venue), new DefaultPriceProvider()]) };
}

/** Once every watcher has applied the block of `hash`'s receipt and finished the reads it started: nothing in flight. */
async function mined(hash: `0x${string}`): Promise<void> {
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  assert.equal(receipt.status, 'success');
  await Promise.all(watchers.map((watcher) => watcher.head.reached(receipt.blockNumber)));
  await Promise.all(watchers.map((watcher) => watcher.reads.idle()));
}

const asset = (symbol: string, patch: Partial<RegistryAsset> = {}): RegistryAsset => ({ ...registry.bySymbol(symbol)!, ...patch });

async function setFeed(symbol: string, usd: number): Promise<void> {
  const wallet = walletClientFor(devnet, devnet.deployerPrivateKey);
  const answer = BigInt(Math.round(usd * 1e8));
  await mined(await wallet.writeContract({ address: devnet.contracts.aggregators[symbol], abi: feedAbi, functionName: 'updateAnswer', args: [answer] }));
}

/** What the engine scores; where the price came from (`origin`) is checked on its own. */
const scored = ({ origin: _origin, ...fact }: PriceFact) => fact;

describe('price sources on the devnet', () => {
  it('reads every oracle with its decimals and checks it against the venue pool', async () => {
    const { chain, venue } = sources();
    for (const { symbol, default_price_usd } of registry.assets) {
      const fact = await chain.quote(asset(symbol));
      const pool = await venue.reading(asset(symbol));
      assert.ok(pool, symbol);
      const oracleUsd = default_price_usd!;
      // A stale round beside a live pool is no quote: the pool's price is, the round beside it (ARCHITECTURE.md "Prices that disagree").
      const expected = symbol === 'MSFT'
        ? { usd: pool.usd, source: 'venue_v4', stale: true, deviationBps: 0, alternative: { usd: oracleUsd, source: 'oracle' } }
        : { usd: oracleUsd, source: 'oracle', stale: false, deviationBps: 0, alternative: { usd: pool.usd, source: 'venue_v4' } };
      assert.deepEqual(scored(fact), expected, symbol);
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
    const venuePrice = { source: 'venue_v4', stale: false, deviationBps: null, alternative: null };
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
      const pool = (await sources().venue.reading(asset('AAPL')))!;
      assert.deepEqual(scored(await sources().chain.quote(asset('AAPL'))), {
        usd: 241.3635, source: 'oracle', stale: false, deviationBps: 476, alternative: { usd: pool.usd, source: 'venue_v4' },
      });
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

  it('coalesces 1,000 concurrent quotes of one asset into one RPC call for both sources', async () => {
    const { chain } = sources();
    proxy.reset();
    const facts = await Promise.all(Array.from({ length: 1000 }, () => chain.quote(asset('TSLA'))));
    assert.equal(new Set(facts.map((fact) => JSON.stringify(fact))).size, 1);
    // The oracle's round and the venue's pool in one Multicall3 call, at the head's block.
    assert.deepEqual(proxy.calls.map((call) => call.method), ['eth_call']);
  });

  it('keeps a price for as long as its block is the head, and reads the next block\'s price once', async () => {
    const { chain } = sources();
    const before = await chain.quote(asset('AAPL'));
    proxy.reset();
    assert.deepEqual(await chain.quote(asset('AAPL')), before);
    assert.equal(proxy.count('eth_call'), 0, 'the same block: no read');
    await setFeed('AAPL', 230.5);
    try {
      proxy.reset();
      const moved = await chain.quote(asset('AAPL'));
      assert.equal(moved.usd, 230.5);
      assert.equal(moved.origin?.kind === 'oracle' && moved.origin.block_hash, reads.head.current()?.hash);
    } finally {
      await setFeed('AAPL', 229.87);
    }
  });

  it('answers unavailable, not the registry default, when the node does not answer', async () => {
    const dead = createChainClient('http://127.0.0.1:9'); // discard port: nothing listens
    const nowhere = await openChainReads(dead, registry, { wsUrl: null, log: () => undefined });
    try {
      const { value, ms } = await timed(() => sources({ on: nowhere }).chain.quote(asset('TSLA')));
      assert.deepEqual(value, UNAVAILABLE);
      assert.ok(ms < 2_500, `answered in ${ms} ms`);
    } finally {
      nowhere.close();
    }
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
    // Reads through the counting proxy; new heads streamed from anvil itself, so the proxy counts reads alone.
    running = await startTestService({ RPC_URL: proxy.url, RPC_WS_URL: webSocketUrlOf(devnet.rpcUrl), REGISTRY_FILE: file, RATE_LIMITS: 'off' }, undefined, { now: clock.now });
    watchers.push(running.service.chain.reads!);
  });
  after(async () => {
    watchers.splice(watchers.indexOf(running.service.chain.reads!), 1);
    await running?.stop();
  });

  it('makes three RPC calls for a burst of 1,000 evaluations of one asset', async (t) => {
    const wallet = '0x00000000000000000000000000000000000b0a57';
    await running.service.chain.reads!.reads.idle();
    proxy.reset();
    const { value: answers, ms } = await timed(() => postBurst(free(), Array.from({ length: 1000 }, () => trade(wallet, 'TSLA'))));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual([answer.json.decision, answer.json.price_source, answer.json.price_usd], ['allow', 'oracle', 350.25]);
    }
    // Three Multicall3 calls: the oracle's round, the venue's pool price and its swap state at the head; the
    // pool's tick-bitmap words around the tick that call gave (ARCHITECTURE.md "Price impact"); and the wallet's
    // holdings at the head a latest-block read sent after the requests arrived confirmed (ChainHead.latest; that
    // read goes over the stream's socket, not through the proxy). The first evaluation's reads of each kind share
    // a turn, and the other 999 find them read or being read. (Token safety's start-up search for the quote
    // token's balance slot may still be running; its calls go to that token.)
    const multicall3 = registry.multicall3.toLowerCase();
    assert.deepEqual(proxy.calls.filter((call) => call.to === multicall3).map((call) => call.method), ['eth_call', 'eth_call', 'eth_call']);
    const quoteToken = registry.venue!.quote_token.address.toLowerCase();
    assert.deepEqual(proxy.calls.filter((call) => call.to !== multicall3 && call.to !== quoteToken), []);
    t.diagnostic(`1,000 concurrent evaluations in ${Math.round(ms)} ms with ${proxy.calls.length} RPC requests`);
  });

  it('reads a burst of 1,000 new wallets in a few calls, not one each', async (t) => {
    await running.service.chain.reads!.reads.idle();
    proxy.reset();
    const wallets = Array.from({ length: 1000 }, (_, n) => `0x${(0xb0a5700000 + n).toString(16).padStart(40, '0')}`);
    const { value: answers, ms } = await timed(() => postBurst(free(), wallets.map((wallet) => trade(wallet, 'TSLA'))));
    for (const answer of answers) assert.deepEqual([answer.status, answer.json.decision, answer.json.daily_pnl_usd], [200, 'allow', 0]);
    // Every evaluation waiting in one turn shares one call (the balance reader's, for many holders); 64 connections put many in each turn.
    const calls = proxy.count('eth_call');
    assert.ok(calls <= 100, `${calls} calls for 1,000 new wallets`);
    assert.ok(proxy.calls.some((call) => call.method === 'eth_call' && call.to === ''), 'the holders\' balances went to the balance reader');
    t.diagnostic(`1,000 new wallets in ${Math.round(ms)} ms with ${calls} eth_calls`);
  });

  it('puts oracle-venue disagreement in the verdict', async () => {
    await setFeed('NVDA', 181.4 * 1.05);
    try {
      const verdict = await postJson(free(), trade('0x00000000000000000000000000000000000d0e57', 'NVDA'));
      assert.deepEqual([verdict.json.price_source, verdict.json.price_usd], ['oracle', 190.47]);
      assert.ok(verdict.json.reasons.includes('PRICE_DEVIATION: oracle and venue prices differ by 476 bps (threshold 200 bps)'), verdict.text);
    } finally {
      // Restored, as the other feed tests do: the restoring block is the head the next test reads at.
      await setFeed('NVDA', 181.4);
    }
  });

  it('never judges a notional on the cheaper of two prices that disagree: a stale or a fresh round at a tenth of the pool price denies', async () => {
    const owner = walletClientFor(devnet, devnet.deployerPrivateKey);
    const feed = devnet.contracts.aggregators.AMZN;
    const twoHoursAgo = (await client.getBlock()).timestamp - 7_200n;
    const expectReason = (reasons: string[]) =>
      assert.ok(reasons.includes('PRICE_SOURCES_DISAGREE: oracle and venue prices differ by 90,000 bps (limit 1,000 bps), so neither can price this trade'), JSON.stringify(reasons));
    try {
      await mined(await owner.writeContract({ address: feed, abi: feedAbi, functionName: 'updateRoundData', args: [2_143_000_000n, twoHoursAgo] }));
      // A stale round is no quote beside a live pool: the pool prices it, 200 AMZN are 42,860 USD, and the disagreement denies.
      const stale = (await postJson(free(), trade('0x00000000000000000000000000000000005a1e01', 'AMZN', 200))).json;
      assert.deepEqual([stale.decision, stale.price_source, Math.round(stale.price_usd * 100) / 100, stale.calculated_notional_usd], ['deny', 'venue_v4', 214.3, 42_860]);
      expectReason(stale.reasons);
      await setFeed('AMZN', 21.43);
      // A fresh round quotes the trade, but the ceiling is judged at the pool's higher price, and the gap denies even one share.
      for (const [amount, notional] of [[200, 42_860], [1, 214.3]] as const) {
        const fresh = (await postJson(free(), trade('0x00000000000000000000000000000000005a1e02', 'AMZN', amount))).json;
        assert.deepEqual([fresh.decision, fresh.price_source, fresh.price_usd, fresh.calculated_notional_usd], ['deny', 'oracle', 21.43, notional]);
        expectReason(fresh.reasons);
      }
    } finally {
      await setFeed('AMZN', 214.3);
    }
  });

  it('marks holdings to market against the first snapshot of the UTC day and denies at the daily loss limit', async () => {
    const holder = devnet.wallets[0];
    const first = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.deepEqual([first.json.decision, first.json.daily_pnl_usd], ['allow', 0]);
    // 10 SPY (6,011 USD) leave the wallet: a loss above the Tier 1 daily limit of 5,000 USD.
    const spy = registry.bySymbol('SPY')!.contract_address as Address;
    // The transfer's block touches the wallet: its holdings are read again, with no clock step.
    await mined(await walletClientFor(devnet, holder.privateKey).writeContract({
      address: spy, abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', parseUnits('10', 18)],
    }));
    const after = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.equal(after.json.daily_pnl_usd, -6011);
    assert.equal(after.json.decision, 'deny');
    assert.ok(after.json.reasons.includes('DAILY_LOSS_LIMIT: daily loss of 6,011 USD reaches the Tier 1 limit of 5,000 USD'), after.text);
    clock.advance(86_400_000); // the next UTC day starts from a new snapshot
    const nextDay = await postJson(free(), trade(holder.address, 'TSLA'));
    assert.deepEqual([nextDay.json.decision, nextDay.json.daily_pnl_usd], ['allow', 0]);
  });

});
