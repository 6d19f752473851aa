// Builds the chain-backed fact sources once per service: prices, daily P&L, token safety, balance simulation.
import type { Hex } from 'viem';
import { OraclePriceProvider } from '../facts/prices/oracle-price.js';
import { OracleWithVenueCheck } from '../facts/prices/oracle-with-venue.js';
import { ChainedPriceProvider, DefaultPriceProvider, type PriceProvider } from '../facts/prices/price-provider.js';
import { VenuePriceProvider } from '../facts/prices/venue-price.js';
import { CompiledProbeCode } from '../facts/safety/probe-code.js';
import { TokenSafetyChecker } from '../facts/safety/token-safety.js';
import type { CacheStore } from '../store/cache-store.js';
import { BalanceSimulator } from '../facts/chain/balance-simulation.js';
import { ChainDailyPnl, type DailyPnlReader } from '../facts/wallet/daily-pnl.js';
import { VenueFacts } from '../facts/quote/venue-facts.js';
import { FeedReader } from '../observability/feed-report.js';
import type { ChainContext } from './attach-chain.js';

export interface ChainFacts {
  prices: PriceProvider;
  /** Null offline (no chain client): daily P&L is flat. */
  dailyPnl: DailyPnlReader | null;
  /** Null offline: the price impact is unknown (ARCHITECTURE.md "Price impact"). */
  venue: VenueFacts | null;
  /** Null offline: the endpoints answer 503. */
  safety: TokenSafetyChecker | null;
  balances: BalanceSimulator | null;
  /** Null offline: every feed as the chain has it now, for /debug/feeds and /status.json. */
  feeds: FeedReader | null;
}

/**
 * Price order: oracle (checked against the venue), then venue, then the registry default,
 * then unavailable. Offline only the registry default exists.
 */
export function chainFacts(chain: ChainContext, store: CacheStore, now: () => number): ChainFacts {
  const { client, registry, reads } = chain;
  if (client === null || reads === null) return { prices: new ChainedPriceProvider([new DefaultPriceProvider()]), dailyPnl: null, venue: null, safety: null, balances: null, feeds: null };
  const oracle = new OraclePriceProvider(reads, { maxAgeSeconds: registry.oracleMaxAgeSeconds });
  const venue = registry.venue ? new VenuePriceProvider(reads, registry.venue) : null;
  const prices = new ChainedPriceProvider([new OracleWithVenueCheck(oracle, venue), new DefaultPriceProvider()]);
  const venueFacts = new VenueFacts(reads, registry.venue);
  // Each new block's prices and pool states are read as it arrives (batched calls), so evaluations find them read.
  reads.head.onHead(() => {
    for (const asset of registry.assets) {
      void prices.quote(asset);
      // A failed read is the evaluation's to report: it reads again and fails closed.
      venueFacts.fact(asset).catch(() => undefined);
    }
  });
  const safety = new TokenSafetyChecker({ client: chain.batchClient ?? client, registry, store, code: new CompiledProbeCode(compiledSafetyProbe), now });
  // The quote token's balance slot is found now, so the first check is as cheap as the rest; a failure is retried then.
  safety.prepare().catch(() => undefined);
  return {
    prices,
    dailyPnl: new ChainDailyPnl(reads, registry, prices, store, now),
    venue: venueFacts,
    safety,
    balances: new BalanceSimulator(client),
    feeds: new FeedReader(client, registry, venue, now),
  };
}

/** SafetyProbe's code compiled (or read from the solc cache) from contracts/; loaded only when a probe needs it. */
export async function compiledSafetyProbe(): Promise<Hex> {
  const [{ compileContracts }, { repoRoot }, { join }] = await Promise.all([
    import('../tools/devnet/compile.js'),
    import('../tools/devnet/sources.js'),
    import('node:path'),
  ]);
  const root = repoRoot();
  const cacheDir = process.env.DEVNET_CACHE_DIR ?? join(root, '.cache', 'solc');
  const { artifacts } = await compileContracts({ root, cacheDir });
  return artifacts.SafetyProbe.deployedBytecode;
}
