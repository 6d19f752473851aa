// Runtime code the safety probes run at a throwaway address: SwapHelper (sells) and Multicall3 (transfers).
import { getAddress, type Address, type Hex, type PublicClient } from 'viem';
import { ChainUnavailableError } from '../chain/errors.js';
import { ReadCache } from '../store/read-cache.js';

export interface ProbeCode {
  swapHelper(): Promise<Hex>;
  multicall(): Promise<Hex>;
}

/** SwapHelper's code compiled from contracts/ when no chain address carries it. */
export type CompiledSwapHelper = () => Promise<Hex>;

/**
 * Code is immutable, so each is read once (failures are retried on the next call). SwapHelper
 * has no constructor, immutables or state, so its runtime code works at any address.
 */
export class ChainProbeCode implements ProbeCode {
  // Entries never expire (infinite TTL), so the cache needs no clock: a constant one says so.
  private readonly cache = new ReadCache<Hex>(Number.POSITIVE_INFINITY, () => 0);

  constructor(
    private readonly client: PublicClient,
    private readonly multicall3: string,
    private readonly swapHelperAddress: string | null,
    /** Supplied by the service's assembly, which alone knows where the repository's contracts are compiled. */
    private readonly compiled: CompiledSwapHelper,
  ) {}

  swapHelper(): Promise<Hex> {
    const at = this.swapHelperAddress;
    return this.cache.get('swapHelper', () => (at ? this.codeAt(getAddress(at)) : this.compiled()));
  }

  multicall(): Promise<Hex> {
    return this.cache.get('multicall', () => this.codeAt(getAddress(this.multicall3)));
  }

  private async codeAt(address: Address): Promise<Hex> {
    let code: Hex | undefined;
    try {
      code = await this.client.getCode({ address });
    } catch (error) {
      throw new ChainUnavailableError(`code read of ${address}`, error);
    }
    if (code === undefined || code === '0x') throw new Error(`no contract code at ${address}, which the safety probe needs`);
    return code;
  }
}
