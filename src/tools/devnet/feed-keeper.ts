// The devnet's feed heartbeat: a fresh feed whose latest round is older than its heartbeat by chain time gets a new round at its pool's price.
import { createPublicClient, http, parseAbi, type Address, type PublicClient } from 'viem';
import type { Logger } from '../../catalogue/failures.js';
import { stateViewAbi } from '../../facts/chain/venue-pool.js';
import { FEED_DECIMALS } from './assets.js';
import { devnetChain, type Devnet } from './devnet.js';
import { usdFromSqrtPriceX96 } from './pricing.js';
import { TxSender } from './sender.js';

/** Half the registry's 3,600 s staleness limit, as a real feed's heartbeat sits well inside its readers' limit. */
export const FEED_HEARTBEAT_SECONDS = 1_800;
/** How often the keeper reads the chain: a block and one round per feed, off every request's path. */
export const FEED_KEEPER_INTERVAL_MS = 2_000;

const aggregatorAbi = parseAbi([
  'function latestRoundData() view returns (uint80, int256, uint256, uint256, uint80)',
  'function updateAnswer(int256 answer)',
]);

export interface FeedRound {
  symbol: string;
  updatedAt: bigint;
}

/** The feeds due a new round at chain time `now` (seconds): those whose latest round is a heartbeat old or older. */
export function feedsDue(rounds: readonly FeedRound[], now: bigint, heartbeatSeconds = FEED_HEARTBEAT_SECONDS): string[] {
  return rounds.filter((round) => now - round.updatedAt >= BigInt(heartbeatSeconds)).map((round) => round.symbol);
}

/**
 * Renews the devnet's feeds as real feeds' heartbeats do (ARCHITECTURE.md "Devnet feed heartbeat"):
 * without it every round is stale an hour after start and every verdict carries PRICE_STALE. The
 * feeds deployed stale on purpose (`devnet.staleFeeds`) are left alone. `current` is read on every
 * tick, so a devnet the supervisor restarted is kept too; a failed tick is logged once and retried.
 */
export class FeedKeeper {
  private readonly timer: NodeJS.Timeout;
  private client: { devnet: Devnet; client: PublicClient } | null = null;
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(private readonly current: () => Devnet | null, private readonly log: Logger) {
    this.timer = setInterval(() => void this.tick(), FEED_KEEPER_INTERVAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One check; a tick still running (a slow node) is not overlapped. */
  tick(): Promise<void> {
    this.running ??= this.renew().then(
      () => this.recovered(),
      (error: Error) => this.failed(error),
    ).finally(() => (this.running = null));
    return this.running;
  }

  private async renew(): Promise<void> {
    const devnet = this.current();
    if (!devnet) return;
    const client = this.clientFor(devnet);
    const kept = devnet.registry.assets.filter((asset) => asset.price_feed && !devnet.staleFeeds.includes(asset.symbol));
    const [block, rounds] = await Promise.all([
      client.getBlock(),
      Promise.all(kept.map(async (asset) => {
        const [, , , updatedAt] = await client.readContract({ address: asset.price_feed as Address, abi: aggregatorAbi, functionName: 'latestRoundData' });
        return { symbol: asset.symbol, updatedAt };
      })),
    ]);
    const due = feedsDue(rounds, block.timestamp);
    if (due.length === 0) return;
    const sender = await TxSender.open(client, devnet.deployerPrivateKey, devnet.chainId);
    for (const symbol of due) await sender.call(`${symbol} feed heartbeat`, devnet.contracts.aggregators[symbol]!, aggregatorAbi, 'updateAnswer', [await this.poolAnswer(devnet, client, symbol)]);
    await sender.confirmAll();
    this.log(`devnet: feed heartbeat: new rounds for ${due.join(', ')} at their pools' prices (chain time ${block.timestamp})`);
  }

  /** The pool's current price in the feed's decimals: what a real feed would report of the market. */
  private async poolAnswer(devnet: Devnet, client: PublicClient, symbol: string): Promise<bigint> {
    const pool = devnet.pools[symbol]!;
    const [sqrtPriceX96] = await client.readContract({ address: devnet.contracts.stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [pool.poolId] });
    const usd = usdFromSqrtPriceX96(sqrtPriceX96, pool.currency0 === pool.token);
    return BigInt(Math.round(usd * 10 ** FEED_DECIMALS));
  }

  private clientFor(devnet: Devnet): PublicClient {
    if (this.client?.devnet !== devnet) {
      this.client = { devnet, client: createPublicClient({ chain: devnetChain(devnet.rpcUrl), transport: http(devnet.rpcUrl) }) as PublicClient };
    }
    return this.client.client;
  }

  private failed(error: Error): void {
    if (!this.failing) this.log(`devnet: feed heartbeat failed (${error.message.split('\n')[0]}); retrying every ${FEED_KEEPER_INTERVAL_MS / 1000} s`, 'warn');
    this.failing = true;
  }

  private recovered(): void {
    if (this.failing) this.log('devnet: feed heartbeat recovered');
    this.failing = false;
  }
}
