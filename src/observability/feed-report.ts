// Every price feed as the chain has it now, beside the venue's price: what /debug/feeds and /status.json show.
import { formatUnits, getAddress, type Address, type PublicClient } from 'viem';
import { readMany, type ContractRead } from '../facts/chain/multicall.js';
import { aggregatorAbi } from '../facts/prices/oracle-price.js';
import { deviationBps } from '../facts/prices/oracle-with-venue.js';
import type { VenuePriceProvider } from '../facts/prices/venue-price.js';
import type { Registry } from '../facts/registry/registry.js';

export interface FeedRow {
  symbol: string;
  feed: string;
  decimals: number | null;
  round_id: string | null;
  answer: string | null;
  price_usd: number | null;
  updated_at: number | null;
  age_seconds: number | null;
  stale: boolean | null;
  venue_price_usd: number | null;
  deviation_bps: number | null;
  /** Set when the feed could not be read (reverted, missing); the row's numbers are then null. */
  problem?: string;
}

export interface FeedReport {
  block: { number: number; timestamp: number; age_seconds: number };
  feeds: FeedRow[];
}

/** Read fresh on every call (no cache): an operator asking is asking about now. One block read and one multicall. */
export class FeedReader {
  constructor(
    private readonly client: PublicClient,
    private readonly registry: Registry,
    private readonly venue: VenuePriceProvider | null,
    private readonly now: () => number,
  ) {}

  async report(): Promise<FeedReport> {
    const assets = this.registry.assets.filter((asset) => asset.price_feed !== null);
    const reads: ContractRead[] = assets.flatMap((asset) => {
      const address = getAddress(asset.price_feed!) as Address;
      return [
        { address, abi: aggregatorAbi, functionName: 'decimals' },
        { address, abi: aggregatorAbi, functionName: 'latestRoundData' },
      ];
    });
    const [block, results] = await Promise.all([
      this.client.getBlock({ blockTag: 'latest' }),
      readMany(this.client, getAddress(this.registry.multicall3), reads, 'feed report'),
    ]);
    const chainNow = Number(block.timestamp);
    const feeds = await Promise.all(assets.map(async (asset, index): Promise<FeedRow> => {
      const [decimals, round] = [results[2 * index], results[2 * index + 1]];
      const venue = this.venue ? await this.venue.reading(asset).catch(() => null) : null;
      const row: FeedRow = {
        symbol: asset.symbol, feed: asset.price_feed!, decimals: null, round_id: null, answer: null, price_usd: null,
        updated_at: null, age_seconds: null, stale: null, venue_price_usd: venue?.usd ?? null, deviation_bps: null,
      };
      if (!decimals.ok || !round.ok) return { ...row, problem: 'the feed did not answer decimals() and latestRoundData()' };
      const [roundId, answer, , updatedAt] = round.value as readonly [bigint, bigint, bigint, bigint, bigint];
      const price = Number(formatUnits(answer, Number(decimals.value)));
      const age = Math.max(0, chainNow - Number(updatedAt));
      return {
        ...row,
        decimals: Number(decimals.value), round_id: roundId.toString(), answer: answer.toString(), price_usd: price,
        updated_at: Number(updatedAt), age_seconds: age, stale: age > this.registry.oracleMaxAgeSeconds,
        deviation_bps: venue && price > 0 ? deviationBps(price, venue.usd) : null,
      };
    }));
    const ageSeconds = Math.max(0, Math.round(this.now() / 1000) - chainNow);
    return { block: { number: Number(block.number), timestamp: chainNow, age_seconds: ageSeconds }, feeds };
  }
}
