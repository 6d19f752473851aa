// Turns a caller's listing limit into a safe record count.

/** 0 for non-positive or non-finite limits, else the whole part capped at `available`. */
export function clampLimit(limit: number, available: number): number {
  if (!Number.isFinite(limit) || limit <= 0) return 0;
  return Math.min(Math.floor(limit), available);
}
