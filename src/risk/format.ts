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
  return abs > 0 && abs < 1 ? SMALL.format(value) : WHOLE_AND_CENTS.format(value);
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
