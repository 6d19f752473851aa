// Number, percentage and time formatting for reason strings, plus cent rounding of notionals.

// en-US with thousands separators (ARCHITECTURE.md "Reason strings": `7,200 USD`).
const WHOLE_AND_CENTS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
// Sub-dollar prices keep four significant digits so a 0.000123 USD token does not read as 0.
const SMALL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
const PERCENT = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** Largest value whose cents are still exactly representable (2^53 / 100). */
const CENT_PRECISION_LIMIT = Number.MAX_SAFE_INTEGER / 100;

export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs > 0 && abs < 1) return SMALL.format(value);
  return plainGrouped(value) ?? WHOLE_AND_CENTS.format(value);
}

/**
 * WHOLE_AND_CENTS's text for a number that needs no rounding (at most two decimals as written,
 * below 10^15), written without Intl, which costs a scoring thread a microsecond a call; null
 * for any other, which Intl writes. A property test holds the two equal.
 */
function plainGrouped(value: number): string | null {
  if (!(Math.abs(value) < 1e15) || Object.is(value, -0)) return null;
  const text = String(value);
  const point = text.indexOf('.');
  if (point !== -1 && text.length - point > 3) return null;
  const negative = value < 0;
  const whole = text.slice(negative ? 1 : 0, point === -1 ? text.length : point);
  const head = whole.length % 3 || 3;
  let grouped = whole.slice(0, head);
  for (let at = head; at < whole.length; at += 3) grouped += `,${whole.slice(at, at + 3)}`;
  return `${negative ? '-' : ''}${grouped}${point === -1 ? '' : text.slice(point)}`;
}

/** `0.84` -> `84%`. */
export function formatShare(share: number): string {
  return PERCENT.format(share);
}

/**
 * Rounds a USD amount to cents. Beyond cent precision the value is returned as is, and an
 * overflow to Infinity is clamped to the largest finite number so the verdict stays valid JSON.
 */
export function roundCents(usd: number): number {
  if (Number.isNaN(usd)) return 0;
  if (!Number.isFinite(usd)) return usd > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
  if (Math.abs(usd) >= CENT_PRECISION_LIMIT) return usd;
  return Math.round(usd * 100) / 100;
}

/** Unix seconds as an ISO-8601 UTC instant without milliseconds; falls back to the raw number. */
export function formatUnixSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return `unix ${formatNumber(seconds)} s`;
  return date.toISOString().replace('.000Z', 'Z');
}
