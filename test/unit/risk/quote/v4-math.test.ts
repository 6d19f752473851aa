// The v4 swap arithmetic against v4-core's own test vectors (test/libraries/SwapMath.t.sol, TickMath bounds), those the
// SwapMath shipped in node_modules (the PoolManager the devnet deploys) still answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SQRT_PRICE, MAX_TICK, MIN_SQRT_PRICE, MIN_TICK, Q96, sqrtPriceAtTick, swapFeePips, swapStep } from '../../../../src/risk/quote/v4-math.js';

const SQRT_PRICE_1_1 = 79228162514264337593543950336n;
const SQRT_PRICE_101_100 = 79623317895830914510639640423n;
const SQRT_PRICE_1000_100 = 250541448375047931186413801569n;
const SQRT_PRICE_10000_100 = 792281625142643375935439503360n;
const ETHER = 10n ** 18n;

/** SwapMath.computeSwapStep's signed amount: negative is exact input. */
function step(current: bigint, target: bigint, liquidity: bigint, amount: bigint, fee: bigint) {
  const result = swapStep(current, target, liquidity, amount < 0n ? -amount : amount, amount < 0n, fee);
  return [result.sqrtPriceNext, result.amountIn, result.amountOut, result.feeAmount];
}

describe('sqrtPriceAtTick', () => {
  it('is 2^96 at tick 0 and the pool bounds at the tick bounds', () => {
    assert.equal(sqrtPriceAtTick(0), Q96);
    assert.equal(sqrtPriceAtTick(MIN_TICK), MIN_SQRT_PRICE);
    assert.equal(sqrtPriceAtTick(MAX_TICK), MAX_SQRT_PRICE);
  });

  it('rises with the tick and refuses a tick out of range', () => {
    for (let tick = -887_000; tick < 887_000; tick += 9_973) assert.ok(sqrtPriceAtTick(tick) < sqrtPriceAtTick(tick + 1));
    assert.throws(() => sqrtPriceAtTick(MAX_TICK + 1), /tick 887273 is outside \[-887272, 887272\]/);
  });
});

describe('swapStep (SwapMath.computeSwapStep vectors)', () => {
  it('exact input one for zero capped at the price target', () => {
    assert.deepEqual(step(SQRT_PRICE_1_1, SQRT_PRICE_101_100, 2n * ETHER, -ETHER, 600n),
      [SQRT_PRICE_101_100, 9975124224178055n, 9925619580021728n, 5988667735148n]);
  });

  it('exact output one for zero capped at the price target', () => {
    assert.deepEqual(step(SQRT_PRICE_1_1, SQRT_PRICE_101_100, 2n * ETHER, ETHER, 600n),
      [SQRT_PRICE_101_100, 9975124224178055n, 9925619580021728n, 5988667735148n]);
  });

  it('exact input one for zero fully spent', () => {
    const [sqrtQ, amountIn, amountOut, fee] = step(SQRT_PRICE_1_1, SQRT_PRICE_1000_100, 2n * ETHER, -ETHER, 600n);
    assert.deepEqual([amountIn, amountOut, fee], [999400000000000000n, 666399946655997866n, 600000000000000n]);
    assert.ok(sqrtQ < SQRT_PRICE_1000_100);
  });

  it('exact output one for zero fully received', () => {
    const [sqrtQ, amountIn, amountOut, fee] = step(SQRT_PRICE_1_1, SQRT_PRICE_10000_100, 2n * ETHER, ETHER, 600n);
    assert.deepEqual([amountIn, amountOut, fee], [2000000000000000000n, ETHER, 1200720432259356n]);
    assert.ok(sqrtQ < SQRT_PRICE_10000_100);
  });

  it('caps the output at the amount asked', () => {
    assert.deepEqual(step(417332158212080721273783715441582n, 1452870262520218020823638996n, 159344665391607089467575320103n, 1n, 1n),
      [417332158212080721273783715441581n, 1n, 1n, 1n]);
  });

  it('uses part of the input when the target price is 1', () => {
    assert.deepEqual(step(2n, 1n, 1n, -3915081100057732413702495386755767n, 1n),
      [1n, 39614081257132168796771975168n, 0n, 39614120871253040049813n]);
  });

  it('handles too little liquidity in an exact output step, both directions', () => {
    const sqrtP = 20282409603651670423947251286016n;
    assert.deepEqual(step(sqrtP, (sqrtP * 11n) / 10n, 1024n, 4n, 3000n), [(sqrtP * 11n) / 10n, 26215n, 0n, 79n]);
    assert.deepEqual(step(sqrtP, (sqrtP * 9n) / 10n, 1024n, 263000n, 3000n), [(sqrtP * 9n) / 10n, 1n, 26214n, 1n]);
  });
});

describe('swapFeePips', () => {
  it('is the LP fee alone without a protocol fee, and the protocol cut plus the LP fee on the rest with one', () => {
    assert.equal(swapFeePips(0, 3000), 3000n);
    assert.equal(swapFeePips(1000, 3000), 3997n);
  });
});
