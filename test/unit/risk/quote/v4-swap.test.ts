// A whole swap over a pool's ticks: the steps Pool.swap takes (initialized ticks, word edges), the fill and the price impact.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Q96, sqrtPriceAtTick, swapStep } from '../../../../src/risk/quote/v4-math.js';
import { nextInitializedTick, priceImpactBps, simulateSwap, type PoolState } from '../../../../src/risk/quote/v4-swap.js';

const ETHER = 10n ** 18n;
const FULL_WINDOW = { lowest: -58, highest: 57 };

/** Price 1 at tick 0, fee 3000, spacing 60: `inner` liquidity on [-60, 60] above `base` liquidity everywhere else read. */
function pool(base: bigint, inner: bigint, words = FULL_WINDOW): PoolState {
  return {
    sqrtPriceX96: Q96, tick: 0, liquidity: base + inner, lpFee: 3000, protocolFee: 0, tickSpacing: 60,
    ticks: [{ tick: -60, liquidityNet: inner }, { tick: 60, liquidityNet: -inner }], words,
  };
}

describe('nextInitializedTick', () => {
  const state = pool(ETHER, ETHER);

  it('finds the initialized tick at or below the price going down, and the next one above going up', () => {
    assert.deepEqual(nextInitializedTick(state, 0, true), { tick: 0, liquidityNet: null });
    assert.deepEqual(nextInitializedTick(state, -1, true), { tick: -60, liquidityNet: ETHER });
    assert.deepEqual(nextInitializedTick(state, 0, false), { tick: 60, liquidityNet: -ETHER });
  });

  it('stops at the word edge when the word holds no further initialized tick', () => {
    assert.deepEqual(nextInitializedTick(state, -61, true), { tick: -256 * 60, liquidityNet: null });
    assert.deepEqual(nextInitializedTick(state, 60, false), { tick: 255 * 60, liquidityNet: null });
  });

  it('knows nothing about a word it did not read', () => {
    assert.equal(nextInitializedTick(pool(ETHER, ETHER, { lowest: 0, highest: 0 }), -61, true), null);
  });
});

describe('simulateSwap', () => {
  it('is one step while the price stays inside the range', () => {
    const outcome = simulateSwap(pool(ETHER, ETHER), { zeroForOne: false, exactIn: true, amount: 10n ** 15n });
    const one = swapStep(Q96, sqrtPriceAtTick(60), 2n * ETHER, 10n ** 15n, true, 3000n);
    assert.deepEqual(outcome, {
      amountIn: one.amountIn + one.feeAmount, amountOut: one.amountOut, feeAmount: one.feeAmount,
      sqrtPriceAfterX96: one.sqrtPriceNext, ticksCrossed: 0, steps: 1, fill: 'filled',
    });
  });

  it('crosses an initialized tick and goes on with the liquidity left beyond it', () => {
    const amount = 10n ** 17n;
    const outcome = simulateSwap(pool(ETHER, ETHER), { zeroForOne: false, exactIn: true, amount });
    const first = swapStep(Q96, sqrtPriceAtTick(60), 2n * ETHER, amount, true, 3000n);
    const rest = amount - first.amountIn - first.feeAmount;
    const second = swapStep(sqrtPriceAtTick(60), sqrtPriceAtTick(255 * 60), ETHER, rest, true, 3000n);
    assert.equal(outcome.ticksCrossed, 1);
    assert.equal(outcome.amountIn, amount);
    assert.equal(outcome.amountOut, first.amountOut + second.amountOut);
    assert.equal(outcome.sqrtPriceAfterX96, second.sqrtPriceNext);
  });

  it('gives back the exact output asked, paying for it in input', () => {
    const outcome = simulateSwap(pool(ETHER, ETHER), { zeroForOne: true, exactIn: false, amount: 10n ** 17n });
    assert.equal(outcome.amountOut, 10n ** 17n);
    assert.equal(outcome.ticksCrossed, 1);
    assert.equal(outcome.fill, 'filled');
  });

  it('says the pool ran dry when the liquidity ends before the amount does', () => {
    const outcome = simulateSwap(pool(0n, ETHER), { zeroForOne: true, exactIn: true, amount: 10n * ETHER });
    assert.equal(outcome.fill, 'exhausted');
    assert.ok(outcome.amountIn < 10n * ETHER);
  });

  it('says the result is a part when the swap walks past the words read', () => {
    const outcome = simulateSwap(pool(ETHER, ETHER, { lowest: -1, highest: 0 }), { zeroForOne: true, exactIn: true, amount: 100n * ETHER });
    assert.equal(outcome.fill, 'beyond_window');
  });
});

describe('priceImpactBps', () => {
  it('is the constant-product impact, fees excluded: dy / (y + dy) on a virtual reserve y = L at price 1', () => {
    const state = pool(ETHER, 0n);
    const outcome = simulateSwap(state, { zeroForOne: false, exactIn: true, amount: 10n ** 16n });
    const traded = Number(outcome.amountIn - outcome.feeAmount);
    const expected = (traded / (1e18 + traded)) * 10_000;
    assert.ok(Math.abs(priceImpactBps(Q96, false, outcome)! - expected) <= 0.01, `${priceImpactBps(Q96, false, outcome)} vs ${expected}`);
  });

  it('is about nothing for a trade the pool does not notice, and unknown for a trade that fills nothing', () => {
    const state = pool(ETHER, 0n);
    // Whole base units round the output down, never up: the impact is at most a hundredth of a basis point.
    assert.ok(priceImpactBps(Q96, true, simulateSwap(state, { zeroForOne: true, exactIn: true, amount: 10n ** 9n }))! <= 0.01);
    assert.equal(priceImpactBps(Q96, true, simulateSwap(state, { zeroForOne: true, exactIn: true, amount: 0n })), null);
  });
});
