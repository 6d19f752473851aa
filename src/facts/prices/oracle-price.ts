// Prices from Chainlink-style aggregators: latestRoundData scaled by the feed's decimals, aged against chain time.
import { formatUnits, getAddress, parseAbi, type Address } from 'viem';
import { PerBlockCache } from '../chain/block-caches.js';
import type { ChainReads } from '../chain/chain-reads.js';
import type { Head } from '../chain/chain-head.js';
import type { RegistryAsset } from '../registry/registry.js';
import type { PriceFact, PriceOrigin } from '../../risk/types.js';
import { FactMemo, UNAVAILABLE, type PriceProvider } from './price-provider.js';

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
  /** Rounds older than this (by the block's timestamp) are stale; default one hour. */
  maxAgeSeconds?: number;
}

/**
 * A reading is read once per block (at that block, with every other read of the turn) and
 * kept until the head moves. A stale answer is still an oracle price (`stale: true`): the
 * engine scores it. A feed that is missing, reverts or answers a non-positive value gives no
 * reading, so the caller falls back to the next source. A node that does not answer, or a
 * head the service cannot confirm, rejects (ChainUnavailableError).
 */
export class OraclePriceProvider implements PriceProvider {
  private readonly cache = new PerBlockCache<OracleReading | null>();
  private readonly memo = new FactMemo<PriceFact>();
  private readonly maxAgeSeconds: number;

  constructor(private readonly chain: ChainReads, options: OracleOptions = {}) {
    this.maxAgeSeconds = options.maxAgeSeconds ?? 3_600;
  }

  async reading(asset: RegistryAsset): Promise<OracleReading | null> {
    const feed = asset.price_feed;
    if (feed === null) return null;
    const head = await this.chain.head.use();
    return this.cache.get(feed.toLowerCase(), head, () => this.read(getAddress(feed), head));
  }

  /** This block's reading once it has answered (`{ value: null }`: the asset has no feed or the feed gave none); undefined while unknown. */
  knownReading(asset: RegistryAsset): { value: OracleReading | null } | undefined {
    const feed = asset.price_feed;
    if (feed === null) return { value: null };
    const head = this.chain.head.current();
    return head === null ? undefined : this.cache.peek(feed.toLowerCase(), head);
  }

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    const reading = await this.reading(asset);
    return reading ? this.memo.get(reading, null, () => ({ usd: reading.usd, source: 'oracle', stale: reading.stale, deviationBps: null, origin: reading.origin })) : UNAVAILABLE;
  }

  /** decimals and the latest round as of `head`, batched with the turn's other reads. */
  private async read(feed: Address, head: Head): Promise<OracleReading | null> {
    const [decimals, round] = await this.chain.reads.read(
      [
        { address: feed, abi: aggregatorAbi, functionName: 'decimals' },
        { address: feed, abi: aggregatorAbi, functionName: 'latestRoundData' },
      ],
      `oracle read of ${feed}`,
      head.number,
    );
    if (!decimals.ok || !round.ok) return null;
    const [roundId, answer, , updatedAt] = round.value as readonly [bigint, bigint, bigint, bigint, bigint];
    if (answer <= 0n || updatedAt === 0n) return null;
    const usd = Number(formatUnits(answer, Number(decimals.value)));
    if (!Number.isFinite(usd) || usd <= 0) return null;
    // Chain time, not the service clock: the feed and the block agree on what "now" is.
    const ageSeconds = Math.max(0, Number(head.timestamp - updatedAt));
    const origin = {
      kind: 'oracle' as const, feed: feed.toLowerCase(), round_id: roundId.toString(), answer: answer.toString(), decimals: Number(decimals.value),
      updated_at: Number(updatedAt), block_number: Number(head.number), block_hash: head.hash,
    };
    return { usd, stale: ageSeconds > this.maxAgeSeconds, ageSeconds, origin };
  }
}
