// Drives a running devnet from tests: typed-enough reads, approvals, simulated sells and pool quotes.
import assert from 'node:assert/strict';
import {
  BaseError,
  ContractFunctionRevertedError,
  erc20Abi,
  maxUint256,
  type Address,
  type Hex,
  type PublicClient,
  type StateOverride,
} from 'viem';
import type { Devnet } from '../../src/tools/devnet/devnet.js';
import { stateViewAbi, swapHelperAbi } from './devnet-abis.js';
import { fullRangeQuote, publicClientFor, walletClientFor } from './devnet-helpers.js';

export interface SellOptions {
  from: Address;
  /** Where SwapHelper's code runs: the deployed helper, or an address given its code by override. */
  helper?: Address;
  /** Pay from the helper's own balance (swapExactInFromHelper) instead of the caller's. */
  fromHelper?: boolean;
  stateOverride?: StateOverride;
}

export class DevnetDriver {
  readonly client: PublicClient;

  constructor(private readonly devnet: Devnet) {
    this.client = publicClientFor(devnet);
  }

  read(address: string, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []): Promise<unknown> {
    return this.client.readContract({ address, abi, functionName, args } as never) as Promise<unknown>;
  }

  async approveMax(privateKey: Hex, token: Address, spender: Address): Promise<void> {
    const wallet = walletClientFor(this.devnet, privateKey);
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] });
    assert.equal((await this.client.waitForTransactionReceipt({ hash })).status, 'success');
  }

  /** Sells `amount` of the pool's token for stablecoin in an eth_call: [paid, amountOut, received]. */
  async sell(symbol: string, amount: bigint, options: SellOptions): Promise<readonly [bigint, bigint, bigint]> {
    const pool = this.devnet.pools[symbol];
    const { result } = await this.client.simulateContract({
      address: options.helper ?? this.devnet.contracts.swapHelper,
      abi: swapHelperAbi,
      functionName: options.fromHelper ? 'swapExactInFromHelper' : 'swapExactIn',
      args: [this.devnet.contracts.poolManager, pool, pool.currency0 === pool.token, amount, 0n, options.from],
      account: options.from,
      stateOverride: options.stateOverride,
    });
    return result;
  }

  /** Asserts the pool paid what constant-product math on its one full-range position predicts, to the base unit. */
  async assertQuote(symbol: string, amountIn: bigint, amountOut: bigint): Promise<void> {
    const pool = this.devnet.pools[symbol];
    const liquidity = (await this.read(this.devnet.contracts.stateView, stateViewAbi, 'getLiquidity', [pool.poolId])) as bigint;
    const expected = fullRangeQuote(liquidity, pool.sqrtPriceX96, pool.currency0 === pool.token, amountIn);
    assert.ok(Math.abs(Number(amountOut) - expected) <= 1, `${symbol} paid ${amountOut}, expected ${expected}`);
  }
}

/** The custom error a contract call reverted with, decoded through the ABI used. */
export function revertName(error: unknown): string | undefined {
  const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
}
