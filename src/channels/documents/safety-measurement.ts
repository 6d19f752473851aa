// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-23',
  commit: '5772daa',
  tokens: 61,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [21, 0, 0],
    [0, 20, 0],
    [0, 0, 20],
  ],
  dangerPrecision: '1.000 (20/20)',
  dangerRecall: '1.000 (20/20)',
  coldMs: { p50: 18.2, p99: 90.0 },
  warmMs: { p50: 0.3, p99: 3.9 },
  roundTripsPerColdCheck: { max: 2, mean: 2.0 },
} as const;
