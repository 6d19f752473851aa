// The sell-size rung: one holder sells a sizeable share of the pool's depth at once, so a token that refuses sells above some size shows.
import { encodeFunctionData, numberToHex, type Address, type Hex } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import type { LegResult, Pool } from './simulation-bundle.js';
import { safetyProbeAbi } from './simulation-bundle.js';

/**
 * Every other holder sells what 100 units of the quote token bought, so a token that reverts
 * sells above a size a buyer of that much never reaches passed them all (ARCHITECTURE.md "Token
 * safety"). This holder is given SIZED_SELL_SHARE_BPS of the token's side of the pool by state
 * override and sells it all into the pool at once, by `transfer`, after the other at-once sells.
 */
export const SIZED_SELL_SHARE_BPS = 500n;

export const SIZED_SELL_LABEL = 'sized.sell';

const Q96 = 2n ** 96n;

/** The pool's reserve of the token at its current price and in-range liquidity (full range: what it holds). */
export function tokenDepth(sqrtPriceX96: bigint, liquidity: bigint, tokenIsCurrency0: boolean): bigint {
  if (sqrtPriceX96 === 0n) return 0n;
  return tokenIsCurrency0 ? (liquidity * Q96) / sqrtPriceX96 : (liquidity * sqrtPriceX96) / Q96;
}

export function sizedSellAmount(sqrtPriceX96: bigint, liquidity: bigint, tokenIsCurrency0: boolean): bigint {
  return (tokenDepth(sqrtPriceX96, liquidity, tokenIsCurrency0) * SIZED_SELL_SHARE_BPS) / 10_000n;
}

export interface SizedSell {
  holder: Address;
  amount: bigint;
}

/** The holder's balance, written into the token's proven balance slot. */
export function sizedSellBalance(sell: SizedSell, slot: BalanceSlot): [string, Hex] {
  return [balanceStorageKey(sell.holder, slot), numberToHex(sell.amount, { size: 32 })];
}

/** The holder (running the probe's code) sells everything into the pool; `origin` sends the call. */
export function sizedSellCall(sell: SizedSell, pool: Pool, origin: Address): { label: string; from: Address; to: Address; data: Hex } {
  const data = encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sellAll', args: [pool.manager, pool.key, pool.tokenIsCurrency0] });
  return { label: SIZED_SELL_LABEL, from: origin, to: sell.holder, data };
}

export interface SizedSellResult {
  amount: bigint;
  ok: boolean;
  failureData: Hex | null;
}

export function readSizedSell(sell: SizedSell | null, legs: ReadonlyMap<string, LegResult>): SizedSellResult | null {
  const leg = legs.get(SIZED_SELL_LABEL);
  if (!sell || !leg) return null;
  return leg.ok ? { amount: sell.amount, ok: true, failureData: null } : { amount: sell.amount, ok: false, failureData: leg.data };
}
