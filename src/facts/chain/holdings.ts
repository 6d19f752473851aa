// Service-token holdings per wallet: balanceOf batched with the turn's other reads, kept until a block touches the wallet.
import type { Address } from 'viem';
import { balanceOfRead } from './multicall.js';
import { unitsToAmount } from '../../risk/amount-grid.js';
import { WalletFactCache } from './block-caches.js';
import { ChainUnavailableError } from './errors.js';
import type { ChainReads } from './chain-reads.js';

export interface ServiceToken {
  address: Address;
  decimals: number;
}

/** Holdings in whole-token units (decimals applied). */
export interface HoldingsReader {
  holdings(wallet: string): Promise<number>;
}

/**
 * A wallet that buys more tokens moves up a tier in the block its Transfer is seen in; a
 * sign-in burst of one wallet is one read. A node that does not answer rejects.
 */
export class ChainHoldingsReader implements HoldingsReader {
  private readonly cache: WalletFactCache<number>;

  constructor(private readonly chain: ChainReads, private readonly token: ServiceToken) {
    this.cache = new WalletFactCache(chain.head);
  }

  async holdings(wallet: string): Promise<number> {
    const holder = wallet.toLowerCase();
    // Read after the request arrived: a rewind since is applied first, so no tier is earned at a block gone from the chain.
    const head = await this.chain.head.latest();
    return this.cache.get(holder, head, async (at) => {
      const [balance] = await this.chain.reads.read(
        [balanceOfRead(this.token.address, holder)],
        `service-token holdings of ${holder}`,
        at.number,
      );
      if (!balance.ok) throw new ChainUnavailableError(`service-token holdings of ${holder}`, new Error('the token did not report a balance'));
      return unitsToAmount(balance.value as bigint, this.token.decimals);
    });
  }
}
