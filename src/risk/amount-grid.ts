// Token amounts on an asset's base-unit grid (10^-decimals), in exact bigint arithmetic.

/** JSON numbers are IEEE doubles; a quantity is at most 10^30 token units (ARCHITECTURE.md "Hostile input"). */
const MAX_TOKEN_UNITS = 10n ** 30n;
const NUMBER_TEXT = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;
const EXACT_UNITS = 2n ** 53n;
/** 10^0 to 10^22, each exact in a double, read from their literals (not computed by `**`). */
const TENS = Array.from({ length: 23 }, (_, power) => Number(`1e${power}`));

/** Grid points of the largest accepted quantity at `decimals`. */
export function maxGridUnits(decimals: number): bigint {
  return MAX_TOKEN_UNITS * 10n ** BigInt(decimals);
}

/**
 * The JSON number a caller sends for `units` base units: the double nearest the exact decimal.
 * Up to 2^53 units and 10^22 both operands of the division are exact doubles, and IEEE division
 * rounds the exact quotient to nearest, so the decimal text (0.35 us) is written only above that:
 * zeros, most of a new wallet's balances, skip it. A property test holds the two equal to viem's
 * `formatUnits` read as a number.
 */
export function unitsToAmount(units: bigint, decimals: number): number {
  if (units >= 0n && units <= EXACT_UNITS && decimals < TENS.length) return Number(units) / TENS[decimals];
  if (decimals === 0) return Number(units);
  const scale = 10n ** BigInt(decimals);
  const fraction = (units % scale).toString().padStart(decimals, '0');
  return Number(`${units / scale}.${fraction}`);
}

/** The exact decimal value of the shortest text that reads back as `amount`, scaled to base units, rounded. */
function unitsOf(amount: number, decimals: number, roundUp: boolean): bigint | null {
  if (!Number.isFinite(amount) || amount <= 0) return null;
  const match = NUMBER_TEXT.exec(String(amount));
  if (match === null) return null;
  const fraction = match[2] ?? '';
  const digits = BigInt(match[1]! + fraction);
  const shift = Number(match[3] ?? 0) - fraction.length + decimals;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return roundUp ? (digits + divisor - 1n) / divisor : digits / divisor;
}

/**
 * The smallest grid point whose amount is at least `amount`, so `unitsToAmount(result) >= amount`.
 * Null for a non-positive or non-finite amount.
 */
export function unitsAtLeast(amount: number, decimals: number): bigint | null {
  return unitsOf(amount, decimals, true);
}

/**
 * The largest JSON number the service reads as at most `units` base units (`unitsAtLeast` of it is not
 * above `units`): a figure a trade is compared with, rounded down to what a double can say, never up.
 * 0 for 0 units.
 */
export function amountAtMost(units: bigint, decimals: number): number {
  if (units <= 0n) return 0;
  let amount = unitsToAmount(units, decimals);
  while (amount > 0 && (unitsAtLeast(amount, decimals) ?? 0n) > units) amount = nextDouble(amount, -1n);
  for (let up = nextDouble(amount, 1n); (unitsAtLeast(up, decimals) ?? units + 1n) <= units; up = nextDouble(up, 1n)) amount = up;
  return amount;
}

/** The positive double next to `value`, below (-1n) or above (1n). */
function nextDouble(value: number, direction: -1n | 1n): number {
  const bits = new BigInt64Array(new Float64Array([value]).buffer);
  bits[0] = bits[0]! + direction;
  return new Float64Array(bits.buffer)[0]!;
}

/** The largest grid point not above the decimal `amount` is written as (what a permit may grant). */
export function unitsAtMost(amount: number, decimals: number): bigint | null {
  return unitsOf(amount, decimals, false);
}

/**
 * The last grid point from `units` up that still reads as the same JSON number: a double cannot tell
 * 18-decimal amounts apart below its precision, so the next amount the service reads as larger is
 * one base unit above this one.
 */
export function lastUnitsReadAs(units: bigint, decimals: number): bigint {
  const amount = unitsToAmount(units, decimals);
  let step = 1n;
  while (unitsToAmount(units + step, decimals) === amount) step *= 2n;
  let low = units;
  let high = units + step;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (unitsToAmount(middle, decimals) === amount) low = middle;
    else high = middle;
  }
  return low;
}

/**
 * The largest grid point in [1, above) that `allows`, or null when 1 does not. `allows(above)` is
 * false and the predicate is monotone (allowed amounts form a prefix), so bisection finds the
 * boundary; each answer is the engine's own verdict, never an estimate. `hints` are grid points
 * tried first to narrow the bracket (each is scored like any other, so a wrong hint costs one
 * evaluation and changes nothing).
 */
export function largestAllowed(allows: (units: bigint) => boolean, above: bigint, hints: readonly bigint[] = []): bigint | null {
  if (above <= 1n) return null;
  let low = 0n; // 0: no allowed point known yet
  let high = above;
  for (const hint of [...hints].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (hint <= low || hint >= high) continue;
    if (allows(hint)) low = hint;
    else high = hint;
  }
  if (low === 0n) {
    if (!allows(1n)) return null;
    low = 1n;
  }
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (allows(middle)) low = middle;
    else high = middle;
  }
  return low;
}
