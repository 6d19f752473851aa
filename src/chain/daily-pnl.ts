// Daily P&L: the wallet's registry holdings marked to market against the first snapshot of its UTC day (ARCHITECTURE.md "Daily loss").
import { pnlSnapshotKey } from '../store/keys.js';
import { erc20Abi, formatUnits, getAddress, type Address, type PublicClient } from 'viem';
import type { PriceProvider } from '../prices/price-provider.js';
import type { Registry, RegistryAsset } from '../registry/registry.js';
import type { CacheStore } from '../store/cache-store.js';
import { multicall3Abi, readMany, type ContractRead } from './multicall.js';
import { ReadCache } from '../store/read-cache.js';

export interface DailyPnlReader {
  /** USD change of the wallet's holdings since its first snapshot of the UTC day of `nowMs`. */
  pnlUsd(wallet: string, nowMs: number): Promise<number>;
}

export interface DailyPnlOptions {
  /** How long one wallet's P&L is reused; default 2 s (the price cache's lifetime). */
  ttlMs?: number;
  /** How long a day's snapshot is kept in the store; default 26 h (a UTC day plus slack for skew). */
  snapshotTtlMs?: number;
}

/** A holding: what is valued and how much the wallet has of it. */
interface Position {
  asset: RegistryAsset | 'settlement';
  amount: number;
}


/**
 * Holdings are every registry asset plus the settlement stablecoin (valued at 1 USD), so a
 * swap between them is flat apart from its costs; transfers out count as a loss. All
 * balances come from one multicall. An asset without any price is left out of both sides.
 * A node that does not answer rejects, and the evaluation fails closed.
 */
export class ChainDailyPnl implements DailyPnlReader {
  private readonly results: ReadCache<number>;
  private readonly snapshots: ReadCache<number>;
  private readonly snapshotTtlMs: number;

  constructor(
    private readonly client: PublicClient,
    private readonly registry: Registry,
    private readonly prices: PriceProvider,
    private readonly store: CacheStore,
    now: () => number,
    options: DailyPnlOptions = {},
  ) {
    this.results = new ReadCache(options.ttlMs ?? 2_000, now);
    this.snapshots = new ReadCache(60 * 60 * 1000, now);
    this.snapshotTtlMs = options.snapshotTtlMs ?? 26 * 60 * 60 * 1000;
  }

  pnlUsd(wallet: string, nowMs: number): Promise<number> {
    const holder = getAddress(wallet.toLowerCase());
    const day = new Date(nowMs).toISOString().slice(0, 10);
    return this.results.get(`${holder}:${day}`, async () => {
      const value = await this.valueUsd(holder);
      const snapshot = await this.snapshots.get(`${holder}:${day}`, () => this.snapshot(holder, day, value, nowMs));
      return roundCents(value - snapshot);
    });
  }

  /** The first value written for the day wins across instances (setIfAbsent); later ones read it. */
  private async snapshot(holder: Address, day: string, value: number, nowMs: number): Promise<number> {
    const key = pnlSnapshotKey(holder, day);
    const entry = JSON.stringify({ value_usd: value, taken_at: nowMs });
    if (await this.store.setIfAbsent(key, entry, this.snapshotTtlMs)) return value;
    const stored = await this.store.get(key);
    const parsed = stored === null ? null : (JSON.parse(stored) as { value_usd?: unknown });
    if (parsed === null || typeof parsed.value_usd !== 'number') throw new Error(`daily P&L snapshot ${key} is missing or malformed`);
    return parsed.value_usd;
  }

  private async valueUsd(holder: Address): Promise<number> {
    const positions = await this.positions(holder);
    const priced = await Promise.all(positions.map((position) => this.value(position)));
    return roundCents(priced.reduce((sum, usd) => sum + usd, 0));
  }

  private async value(position: Position): Promise<number> {
    if (position.amount === 0) return 0;
    if (position.asset === 'settlement') return position.amount;
    const price = await this.prices.quote(position.asset);
    return price.source === 'unavailable' ? 0 : position.amount * price.usd;
  }

  private async positions(holder: Address): Promise<Position[]> {
    const multicall3 = getAddress(this.registry.multicall3);
    const settlement = this.registry.settlementAsset;
    const reads: ContractRead[] = this.registry.assets.map((asset) =>
      asset.is_native
        ? { address: multicall3, abi: multicall3Abi, functionName: 'getEthBalance', args: [holder] }
        : { address: getAddress(asset.contract_address), abi: erc20Abi, functionName: 'balanceOf', args: [holder] },
    );
    if (settlement) reads.push({ address: getAddress(settlement.address), abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
    const results = await readMany(this.client, multicall3, reads, `holdings of ${holder}`);
    return results.map((result, index) => {
      const asset = index < this.registry.assets.length ? this.registry.assets[index] : 'settlement';
      const decimals = asset === 'settlement' ? settlement!.decimals : asset.decimals;
      // A registry token that will not report a balance is a broken fact, not a zero: fail closed.
      if (!result.ok) throw new Error(`balance of ${asset === 'settlement' ? 'the settlement asset' : asset.symbol} could not be read`);
      return { asset, amount: Number(formatUnits(result.value as bigint, decimals)) };
    });
  }
}

function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}
