// Prices from Chainlink-style aggregators: latestRoundData scaled by the feed's decimals, aged against chain time.
import { formatUnits, getAddress, parseAbi, type Address, type PublicClient } from 'viem';
import { blockNumberRead, blockTimestampRead, readMany } from '../chain/multicall.js';
import { ReadCache } from '../store/read-cache.js';
import type { RegistryAsset } from '../registry/registry.js';
import type { PriceFact, PriceOrigin } from '../risk/types.js';
import { UNAVAILABLE, type PriceProvider } from './price-provider.js';

export const aggregatorAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

export interface OracleReading {
  usd: number;
  /** True when the round is older than the staleness limit (by the chain's clock). */
  stale: boolean;
  ageSeconds: number;
  /** The round as read, for the audit record. */
  origin: Extract<PriceOrigin, { kind: 'oracle' }>;
}

export interface OracleOptions {
  multicall3: string;
  /** The service's clock, which ages cached readings (the round's own age is chain time). */
  now: () => number;
  /** Rounds older than this are stale; default one hour. */
  maxAgeSeconds?: number;
  /** How long a reading is reused; default 2 s. */
  ttlMs?: number;
}

/**
 * A stale answer is still an oracle price (`stale: true`): the engine scores it. A feed that
 * is missing, reverts or answers a non-positive value gives no reading, so the caller falls
 * back to the next source. A node that does not answer rejects (ChainUnavailableError).
 */
export class OraclePriceProvider implements PriceProvider {
  private readonly cache: ReadCache<OracleReading | null>;
  private readonly multicall3: Address;
  private readonly maxAgeSeconds: number;

  constructor(private readonly client: PublicClient, options: OracleOptions) {
    this.cache = new ReadCache(options.ttlMs ?? 2_000, options.now);
    this.multicall3 = getAddress(options.multicall3);
    this.maxAgeSeconds = options.maxAgeSeconds ?? 3_600;
  }

  reading(asset: RegistryAsset): Promise<OracleReading | null> {
    const feed = asset.price_feed;
    if (feed === null) return Promise.resolve(null);
    return this.cache.get(feed.toLowerCase(), () => this.read(getAddress(feed)));
  }

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    const reading = await this.reading(asset);
    return reading ? { usd: reading.usd, source: 'oracle', stale: reading.stale, deviationBps: null, origin: reading.origin } : UNAVAILABLE;
  }

  /** decimals, the latest round and the block time in one eth_call. */
  private async read(feed: Address): Promise<OracleReading | null> {
    const [decimals, round, now, block] = await readMany(
      this.client,
      this.multicall3,
      [
        { address: feed, abi: aggregatorAbi, functionName: 'decimals' },
        { address: feed, abi: aggregatorAbi, functionName: 'latestRoundData' },
        blockTimestampRead(this.multicall3),
        blockNumberRead(this.multicall3),
      ],
      `oracle read of ${feed}`,
    );
    if (!decimals.ok || !round.ok || !now.ok) return null;
    const [roundId, answer, , updatedAt] = round.value as readonly [bigint, bigint, bigint, bigint, bigint];
    if (answer <= 0n || updatedAt === 0n) return null;
    const usd = Number(formatUnits(answer, Number(decimals.value)));
    if (!Number.isFinite(usd) || usd <= 0) return null;
    // Chain time, not the service clock: the feed and the block agree on what "now" is.
    const ageSeconds = Math.max(0, Number((now.value as bigint) - updatedAt));
    const origin = {
      kind: 'oracle' as const, feed: feed.toLowerCase(), round_id: roundId.toString(), answer: answer.toString(), decimals: Number(decimals.value),
      updated_at: Number(updatedAt), block_number: block.ok ? Number(block.value as bigint) : -1,
    };
    return { usd, stale: ageSeconds > this.maxAgeSeconds, ageSeconds, origin };
  }
}
