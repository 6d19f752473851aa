// A whole v4 swap over one block's pool state, step by step as Pool.swap walks it, without a node (ARCHITECTURE.md "Price impact").
import { MAX_SQRT_PRICE, MAX_TICK, MIN_SQRT_PRICE, MIN_TICK, Q96, sqrtPriceAtTick, swapFeePips, swapStep } from './v4-math.js';

/** An initialized tick: where liquidity starts or stops, as the pool's tick bitmap and tick info hold it. */
export interface InitializedTick {
  tick: number;
  liquidityNet: bigint;
}

/** What a swap needs of a pool at one block (slot0, liquidity, the ticks in the bitmap words read). */
export interface PoolState {
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  lpFee: number;
  protocolFee: number;
  tickSpacing: number;
  /** Every initialized tick in the words read, in ascending order. */
  ticks: readonly InitializedTick[];
  /** The bitmap words read, inclusive: a swap that needs a word outside them cannot be quoted exactly. */
  words: { lowest: number; highest: number };
}

export interface SwapRequest {
  zeroForOne: boolean;
  /** Exact input (fee included) when true; exact output otherwise. */
  exactIn: boolean;
  amount: bigint;
}

export interface SwapOutcome {
  /** What the pool takes, fee included. */
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
  sqrtPriceAfterX96: bigint;
  ticksCrossed: number;
  /** Swap steps taken; each rounds its amounts by at most a base unit, in the pool's favour. */
  steps: number;
  /**
   * `filled`: the whole amount trades. `exhausted`: the pool's liquidity ends before it (the price
   * reaches its bound). `beyond_window`: the swap walks past the ticks read, so the result is a part only.
   */
  fill: 'filled' | 'exhausted' | 'beyond_window';
}

/** Pool.swap with no price limit (the bound a router passes), over `state`. */
export function simulateSwap(state: PoolState, request: SwapRequest): SwapOutcome {
  const { zeroForOne, exactIn } = request;
  const fee = swapFeePips(zeroForOne ? state.protocolFee & 0xfff : state.protocolFee >> 12, state.lpFee);
  const limit = zeroForOne ? MIN_SQRT_PRICE + 1n : MAX_SQRT_PRICE - 1n;
  let [sqrtPrice, tick, liquidity, remaining] = [state.sqrtPriceX96, state.tick, state.liquidity, request.amount];
  const outcome: SwapOutcome = { amountIn: 0n, amountOut: 0n, feeAmount: 0n, sqrtPriceAfterX96: sqrtPrice, ticksCrossed: 0, steps: 0, fill: 'filled' };
  while (remaining > 0n && sqrtPrice !== limit) {
    const next = nextInitializedTick(state, tick, zeroForOne);
    if (next === null) return { ...outcome, sqrtPriceAfterX96: sqrtPrice, fill: 'beyond_window' };
    const tickNext = Math.min(Math.max(next.tick, MIN_TICK), MAX_TICK);
    const sqrtNext = sqrtPriceAtTick(tickNext);
    const target = zeroForOne ? (sqrtNext < limit ? limit : sqrtNext) : (sqrtNext > limit ? limit : sqrtNext);
    const step = swapStep(sqrtPrice, target, liquidity, remaining, exactIn, fee);
    outcome.steps++;
    sqrtPrice = step.sqrtPriceNext;
    remaining -= exactIn ? step.amountIn + step.feeAmount : step.amountOut;
    outcome.amountIn += step.amountIn + step.feeAmount;
    outcome.amountOut += step.amountOut;
    outcome.feeAmount += step.feeAmount;
    // Short of the next tick the amount is used up (or the limit reached): the loop ends, so the tick needs no update.
    if (sqrtPrice !== sqrtNext) continue;
    if (next.liquidityNet !== null) {
      liquidity += zeroForOne ? -next.liquidityNet : next.liquidityNet;
      outcome.ticksCrossed++;
    }
    tick = zeroForOne ? tickNext - 1 : tickNext;
  }
  outcome.sqrtPriceAfterX96 = sqrtPrice;
  if (remaining > 0n) outcome.fill = 'exhausted';
  return outcome;
}

/**
 * TickBitmap.nextInitializedTickWithinOneWord over the ticks read: the next initialized tick in
 * the current word, else the word's edge (liquidityNet null). The pool steps at word edges too,
 * and each step rounds, so the quote must stop where the pool stops. Null outside the words read.
 */
export function nextInitializedTick(state: PoolState, tick: number, lte: boolean): { tick: number; liquidityNet: bigint | null } | null {
  const spacing = state.tickSpacing;
  const compressed = Math.floor(tick / spacing) + (lte ? 0 : 1);
  const word = Math.floor(compressed / 256);
  if (word < state.words.lowest || word > state.words.highest) return null;
  const ticks = state.ticks;
  if (lte) {
    const index = lastAtOrBelow(ticks, compressed * spacing);
    const found = index >= 0 ? ticks[index] : undefined;
    if (found !== undefined && found.tick >= word * 256 * spacing) return found;
    return { tick: word * 256 * spacing, liquidityNet: null };
  }
  const index = lastAtOrBelow(ticks, compressed * spacing - 1) + 1;
  const found = ticks[index];
  if (found !== undefined && found.tick <= (word * 256 + 255) * spacing) return found;
  return { tick: (word * 256 + 255) * spacing, liquidityNet: null };
}

/** The index of the last tick at or below `tick`; -1 when none is. */
function lastAtOrBelow(ticks: readonly InitializedTick[], tick: number): number {
  let [low, high] = [0, ticks.length - 1];
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ticks[middle].tick <= tick) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

/**
 * How far below the pool's price before the trade the fill lands, fees excluded, in basis points
 * (two decimals): 1 - (out / (in - fee)) / spot, spot in output per input from sqrtPriceX96.
 */
export function priceImpactBps(sqrtPriceX96: bigint, zeroForOne: boolean, outcome: SwapOutcome): number | null {
  const traded = outcome.amountIn - outcome.feeAmount;
  if (traded <= 0n || outcome.amountOut === 0n) return null;
  const square = sqrtPriceX96 * sqrtPriceX96;
  const scale = 1_000_000n;
  // out / traded / spot, with spot = square / 2^192 (zeroForOne) or 2^192 / square.
  const ratio = zeroForOne
    ? (outcome.amountOut * Q96 * Q96 * scale) / (traded * square)
    : (outcome.amountOut * square * scale) / (traded * Q96 * Q96);
  const impact = Number(scale - ratio) / 100;
  return Math.max(0, impact);
}
