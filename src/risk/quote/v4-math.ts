// Uniswap v4-core's fixed-point swap arithmetic (TickMath, SqrtPriceMath, SwapMath) in bigint, rounding where the pool rounds (ARCHITECTURE.md "Price impact").

export const Q96 = 1n << 96n;
const MAX_UINT256 = (1n << 256n) - 1n;
/** The fee denominator: fees are in pips, hundredths of a basis point. */
export const MAX_SWAP_FEE = 1_000_000n;

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const MIN_SQRT_PRICE = 4295128739n;
export const MAX_SQRT_PRICE = 1461446703485210103287273052203988822378723970342n;

/** TickMath's Q128.128 factors: 1/sqrt(1.0001)^(2^i) for bit i of |tick| (i >= 1), bit 0 seeds the product. */
const TICK_FACTORS: readonly bigint[] = [
  0xfff97272373d413259a46990580e213an, 0xfff2e50f5f656932ef12357cf3c7fdccn, 0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n, 0xff973b41fa98c081472e6896dfb254c0n, 0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n, 0xfcbe86c7900a88aedcffc83b479aa3a4n, 0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n, 0xe7159475a2c29b7443b29c7fa6e889d9n, 0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n, 0x70d869a156d2a1b890bb3df62baf32f7n, 0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n, 0x5d6af8dedb81196699c329225ee604n, 0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
];

/** sqrt(1.0001^tick) * 2^96, rounded up from Q128.128 as TickMath.getSqrtPriceAtTick does. */
export function sqrtPriceAtTick(tick: number): bigint {
  const abs = Math.abs(tick);
  if (!Number.isInteger(tick) || abs > MAX_TICK) throw new RangeError(`tick ${tick} is outside [${MIN_TICK}, ${MAX_TICK}]`);
  let price = (abs & 1) !== 0 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n;
  for (let bit = 1; bit < 20; bit++) {
    if ((abs & (1 << bit)) !== 0) price = (price * TICK_FACTORS[bit - 1]) >> 128n;
  }
  if (tick > 0) price = MAX_UINT256 / price;
  return (price + 0xffffffffn) >> 32n;
}

export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  return (a * b) / denominator;
}

export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  const product = a * b;
  const quotient = product / denominator;
  return product % denominator === 0n ? quotient : quotient + 1n;
}

function divRoundingUp(a: bigint, b: bigint): bigint {
  return a / b + (a % b === 0n ? 0n : 1n);
}

/** Currency0 between two prices for `liquidity`: L * (sqrtB - sqrtA) / sqrtB / sqrtA, each division rounded the same way. */
export function amount0Delta(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const [lower, upper] = sqrtA < sqrtB ? [sqrtA, sqrtB] : [sqrtB, sqrtA];
  const numerator1 = liquidity << 96n;
  const numerator2 = upper - lower;
  return roundUp
    ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, upper), lower)
    : mulDiv(numerator1, numerator2, upper) / lower;
}

/** Currency1 between two prices for `liquidity`: L * |sqrtB - sqrtA| / 2^96. */
export function amount1Delta(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const difference = sqrtA > sqrtB ? sqrtA - sqrtB : sqrtB - sqrtA;
  return roundUp ? mulDivRoundingUp(liquidity, difference, Q96) : mulDiv(liquidity, difference, Q96);
}

/**
 * The price after adding (or removing) currency0, rounded up. Solidity takes one of two formulas
 * depending on whether amount * sqrtP overflows 256 bits; they round differently, so both are kept.
 */
function nextSqrtPriceFromAmount0(sqrtP: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (amount === 0n) return sqrtP;
  const numerator1 = liquidity << 96n;
  const product = amount * sqrtP;
  if (add) {
    if (product <= MAX_UINT256 && numerator1 + product <= MAX_UINT256) return mulDivRoundingUp(numerator1, sqrtP, numerator1 + product);
    return divRoundingUp(numerator1, numerator1 / sqrtP + amount);
  }
  if (product > MAX_UINT256 || numerator1 <= product) throw new RangeError('price overflow: the output exceeds the pool');
  return mulDivRoundingUp(numerator1, sqrtP, numerator1 - product);
}

/** The price after adding (or removing) currency1, rounded down. */
function nextSqrtPriceFromAmount1(sqrtP: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (add) return sqrtP + (amount << 96n) / liquidity;
  const quotient = divRoundingUp(amount << 96n, liquidity);
  if (sqrtP <= quotient) throw new RangeError('not enough liquidity for the output');
  return sqrtP - quotient;
}

export function nextSqrtPriceFromInput(sqrtP: bigint, liquidity: bigint, amountIn: bigint, zeroForOne: boolean): bigint {
  return zeroForOne ? nextSqrtPriceFromAmount0(sqrtP, liquidity, amountIn, true) : nextSqrtPriceFromAmount1(sqrtP, liquidity, amountIn, true);
}

export function nextSqrtPriceFromOutput(sqrtP: bigint, liquidity: bigint, amountOut: bigint, zeroForOne: boolean): bigint {
  return zeroForOne ? nextSqrtPriceFromAmount1(sqrtP, liquidity, amountOut, false) : nextSqrtPriceFromAmount0(sqrtP, liquidity, amountOut, false);
}

export interface SwapStep {
  sqrtPriceNext: bigint;
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
}

/**
 * One step of a swap inside one tick range, as SwapMath.computeSwapStep: toward `sqrtTarget`
 * with `remaining` left to trade (exactIn: input, fee included; else output), fee in pips.
 */
export function swapStep(sqrtCurrent: bigint, sqrtTarget: bigint, liquidity: bigint, remaining: bigint, exactIn: boolean, feePips: bigint): SwapStep {
  const zeroForOne = sqrtCurrent >= sqrtTarget;
  const inDelta = (from: bigint, to: bigint, roundUp: boolean): bigint =>
    zeroForOne ? amount0Delta(to, from, liquidity, roundUp) : amount1Delta(from, to, liquidity, roundUp);
  const outDelta = (from: bigint, to: bigint): bigint =>
    zeroForOne ? amount1Delta(to, from, liquidity, false) : amount0Delta(from, to, liquidity, false);
  if (exactIn) {
    const remainingLessFee = mulDiv(remaining, MAX_SWAP_FEE - feePips, MAX_SWAP_FEE);
    const toTarget = inDelta(sqrtCurrent, sqrtTarget, true);
    if (remainingLessFee >= toTarget) {
      const feeAmount = feePips === MAX_SWAP_FEE ? toTarget : mulDivRoundingUp(toTarget, feePips, MAX_SWAP_FEE - feePips);
      return { sqrtPriceNext: sqrtTarget, amountIn: toTarget, amountOut: outDelta(sqrtCurrent, sqrtTarget), feeAmount };
    }
    const sqrtPriceNext = nextSqrtPriceFromInput(sqrtCurrent, liquidity, remainingLessFee, zeroForOne);
    return { sqrtPriceNext, amountIn: remainingLessFee, amountOut: outDelta(sqrtCurrent, sqrtPriceNext), feeAmount: remaining - remainingLessFee };
  }
  let amountOut = outDelta(sqrtCurrent, sqrtTarget);
  let sqrtPriceNext = sqrtTarget;
  if (remaining < amountOut) {
    amountOut = remaining;
    sqrtPriceNext = nextSqrtPriceFromOutput(sqrtCurrent, liquidity, amountOut, zeroForOne);
  }
  const amountIn = inDelta(sqrtCurrent, sqrtPriceNext, true);
  return { sqrtPriceNext, amountIn, amountOut, feeAmount: mulDivRoundingUp(amountIn, feePips, MAX_SWAP_FEE - feePips) };
}

/** ProtocolFeeLibrary.calculateSwapFee: the protocol's cut first, the LP fee on the rest. */
export function swapFeePips(protocolFee: number, lpFee: number): bigint {
  const [protocol, lp] = [BigInt(protocolFee), BigInt(lpFee)];
  return protocol === 0n ? lp : protocol + lp - (protocol * lp) / MAX_SWAP_FEE;
}
