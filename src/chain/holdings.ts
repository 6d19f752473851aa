// Service-token holdings per wallet, read with balanceOf and cached briefly.
import { erc20Abi, formatUnits, getAddress, type Address, type PublicClient } from 'viem';
import { ReadCache } from '../store/read-cache.js';

export interface ServiceToken {
  address: Address;
  decimals: number;
}

/** Holdings in whole-token units (decimals applied). */
export interface HoldingsReader {
  holdings(wallet: string): Promise<number>;
}

/**
 * A short cache (default 15 s) keeps a sign-in burst to one call per wallet while
 * a wallet that buys more tokens still moves up a tier within a minute.
 */
export class ChainHoldingsReader implements HoldingsReader {
  private readonly cache: ReadCache<number>;

  constructor(private readonly client: PublicClient, private readonly token: ServiceToken, now: () => number, ttlMs = 15_000) {
    this.cache = new ReadCache(ttlMs, now);
  }

  holdings(wallet: string): Promise<number> {
    const holder = getAddress(wallet.toLowerCase());
    return this.cache.get(holder, async () => {
      const raw = await this.client.readContract({
        address: this.token.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [holder],
      });
      return Number(formatUnits(raw, this.token.decimals));
    });
  }
}
