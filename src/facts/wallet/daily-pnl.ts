// Daily P&L: the wallet's registry holdings marked to market against the first snapshot of its UTC day (ARCHITECTURE.md "Daily loss").
import { lowerPrice } from '../../risk/derived.js';
import { unitsToAmount } from '../../risk/amount-grid.js';
import { pnlSnapshotKey } from '../../store/keys.js';
import { getAddress, type Address } from 'viem';
import type { PriceProvider } from '../prices/price-provider.js';
import type { Registry, RegistryAsset } from '../registry/registry.js';
import type { CacheStore } from '../../store/cache-store.js';
import { balanceOfRead, nativeBalanceRead, type ContractRead } from '../chain/multicall.js';
import { ReadCache } from '../../store/read-cache.js';
import { WalletFactCache } from '../chain/block-caches.js';
import type { Head } from '../chain/chain-head.js';
import type { ChainReads } from '../chain/chain-reads.js';

export interface DailyPnlReader {
  /** USD change of the wallet's holdings since its first snapshot of the UTC day of `nowMs`. */
  pnlUsd(wallet: string, nowMs: number): Promise<number>;
}

export interface DailyPnlOptions {
  /** How long a day's snapshot is kept in the store; default 26 h (a UTC day plus slack for skew). */
  snapshotTtlMs?: number;
}


/**
 * Holdings are every registry asset plus the settlement stablecoin (valued at 1 USD), so a
 * swap between them is flat apart from its costs; transfers out count as a loss. A wallet's
 * balances are read in one batched multicall and kept until a block's Transfer logs touch the
 * wallet; they are valued at the current block's prices. An asset without any price is left
 * out of both sides. A node that does not answer, or a head the service cannot confirm,
 * rejects, and the evaluation fails closed.
 */
export class ChainDailyPnl implements DailyPnlReader {
  private readonly balances: WalletFactCache<Float64Array>;
  private readonly snapshots: ReadCache<number>;
  private readonly snapshotTtlMs: number;
  private readonly multicall3: Address;
  /** The value of each holdings object at the block it was last valued at (valueAt). */
  private readonly valued = new WeakMap<Float64Array, { hash: string; value: number }>();

  constructor(
    private readonly chain: ChainReads,
    private readonly registry: Registry,
    private readonly prices: PriceProvider,
    private readonly store: CacheStore,
    now: () => number,
    options: DailyPnlOptions = {},
  ) {
    this.balances = new WalletFactCache(chain.head);
    this.multicall3 = getAddress(registry.multicall3);
    this.snapshots = new ReadCache(60 * 60 * 1000, now);
    this.snapshotTtlMs = options.snapshotTtlMs ?? 26 * 60 * 60 * 1000;
  }

  /**
   * Once the head is confirmed, at once when the wallet's holdings, their value at that head and
   * the day's snapshot are all kept: a fleet's wallets repeat, and each of the four steps below
   * would otherwise cost a turn of promises per request (issue 30). Otherwise the steps run in turn.
   */
  pnlUsd(wallet: string, nowMs: number): Promise<number> {
    // The head as a read sent after the request arrived finds it: a rewind since is applied first, and with it the
    // holdings read at blocks that left the chain are dropped (ChainHead.latest, issue 39).
    return this.chain.head.latest().then((head) => this.pnlAt(head, wallet.toLowerCase(), utcDay(nowMs), nowMs));
  }

  private pnlAt(head: Head, holder: string, day: string, nowMs: number): number | Promise<number> {
    const amounts = this.balances.peek(holder);
    const known = amounts === undefined ? undefined : this.valued.get(amounts);
    if (known !== undefined && known.hash === head.hash) {
      const snapshot = this.snapshots.peek(`${holder}:${day}`);
      if (snapshot !== undefined) return roundCents(known.value - snapshot);
    }
    return this.pnlInSteps(head, holder, day, nowMs);
  }

  private async pnlInSteps(head: Head, holder: string, day: string, nowMs: number): Promise<number> {
    const amounts = await this.balances.get(holder, head, (at) => this.readBalances(holder, at));
    const value = await this.valueAt(amounts, head);
    const snapshot = await this.snapshots.get(`${holder}:${day}`, () => this.snapshot(holder, day, value, nowMs));
    return roundCents(value - snapshot);
  }

  /** The first value written for the day wins across instances (setIfAbsent); later ones read it. */
  private async snapshot(holder: string, day: string, value: number, nowMs: number): Promise<number> {
    const key = pnlSnapshotKey(holder, day);
    const entry = JSON.stringify({ value_usd: value, taken_at: nowMs });
    if (await this.store.setIfAbsent(key, entry, this.snapshotTtlMs)) return value;
    const stored = await this.store.get(key);
    const parsed = stored === null ? null : (JSON.parse(stored) as { value_usd?: unknown });
    if (parsed === null || typeof parsed.value_usd !== 'number') throw new Error(`daily P&L snapshot ${key} is missing or malformed`);
    return parsed.value_usd;
  }

  /**
   * The holdings' value at `head`, worked out once per holdings and block: a wallet's balances are
   * the same object until a block touches it, and prices are read per block, so a fleet's wallets
   * are not valued again on every request of a block (issue 30). A value that left out an asset
   * for want of a price is not kept: the next request may find the price.
   */
  private async valueAt(amounts: Float64Array, head: Head): Promise<number> {
    const known = this.valued.get(amounts);
    if (known !== undefined && known.hash === head.hash) return known.value;
    const { value, complete } = await this.valueUsd(amounts);
    if (complete) this.valued.set(amounts, { hash: head.hash, value });
    return value;
  }

  /** Registry assets at their current prices, then the settlement asset at 1 USD (the last amount, when there is one). */
  private async valueUsd(amounts: Float64Array): Promise<{ value: number; complete: boolean }> {
    const assets = this.registry.assets;
    let total = amounts.length > assets.length ? amounts[assets.length] : 0;
    const priced = await Promise.all(assets.map((asset, index) => (amounts[index] === 0 ? 0 : this.value(asset, amounts[index]))));
    let complete = true;
    for (const usd of priced) {
      if (usd === null) complete = false;
      else total += usd;
    }
    return { value: roundCents(total), complete };
  }

  /** ARCHITECTURE.md "Prices that disagree": holdings are valued at the lower price read, the one that shows the larger loss; null without a price. */
  private async value(asset: RegistryAsset, amount: number): Promise<number | null> {
    const price = await this.prices.quote(asset);
    return price.source === 'unavailable' ? null : amount * lowerPrice(price);
  }

  /** Every registry asset's balance then the settlement asset's, in whole units, as of `head`. */
  private async readBalances(holder: string, head: Head): Promise<Float64Array> {
    const multicall3 = this.multicall3;
    const settlement = this.registry.settlementAsset;
    // The holder goes lowercase: viem would re-derive a checksummed address's checksum to check it.
    const reads: ContractRead[] = this.registry.assets.map((asset) =>
      asset.is_native
        ? nativeBalanceRead(multicall3, holder)
        : balanceOfRead(asset.contract_address as Address, holder),
    );
    if (settlement) reads.push(balanceOfRead(settlement.address as Address, holder));
    const results = await this.chain.reads.read(reads, `holdings of ${holder}`, head.number);
    const amounts = new Float64Array(results.length);
    results.forEach((result, index) => {
      const asset = index < this.registry.assets.length ? this.registry.assets[index] : null;
      // A registry token that will not report a balance is a broken fact, not a zero: fail closed.
      if (!result.ok) throw new Error(`balance of ${asset ? asset.symbol : 'the settlement asset'} could not be read`);
      amounts[index] = unitsToAmount(result.value as bigint, asset ? asset.decimals : settlement!.decimals);
    });
    return amounts;
  }
}

/** The UTC day of the last instant asked, kept while instants fall in it: the date is written once a day, not per request. */
let lastDay = { start: 0, end: 0, text: '' };

/** `YYYY-MM-DD` of the UTC day holding `nowMs`. */
export function utcDay(nowMs: number): string {
  if (nowMs < lastDay.start || nowMs >= lastDay.end) {
    const start = nowMs - (((nowMs % DAY_MS) + DAY_MS) % DAY_MS);
    lastDay = { start, end: start + DAY_MS, text: new Date(start).toISOString().slice(0, 10) };
  }
  return lastDay.text;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}
