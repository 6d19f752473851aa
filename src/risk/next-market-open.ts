// The next NYSE regular-session open after a given instant, from the same calendar as marketSession.
import { marketSession, newYorkWallClock } from './market-hours.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Long enough to cross any run of weekend days, holidays and unscheduled closures. */
const SEARCH_DAYS = 14;

/** 09:30 in New York on a civil date, as epoch ms: New York is UTC-4 or UTC-5, so one of two instants. */
function openInstant(year: number, month: number, day: number): number | null {
  const wall = Date.UTC(year, month - 1, day, 9, 30);
  for (const offsetHours of [4, 5]) {
    const instant = wall + offsetHours * HOUR_MS;
    const clock = newYorkWallClock(instant);
    if (clock.year === year && clock.month === month && clock.day === day && clock.minuteOfDay === 9 * 60 + 30) return instant;
  }
  return null;
}

/**
 * Unix seconds of the first regular-session open strictly after `nowMs` (ARCHITECTURE.md "Market
 * hours"): a day counts when marketSession is open at its 09:30, so holidays, weekends and
 * closures come from the one calendar; null if none within SEARCH_DAYS (never, for the NYSE).
 */
export function nextMarketOpen(nowMs: number): number | null {
  const today = newYorkWallClock(nowMs);
  const start = Date.UTC(today.year, today.month - 1, today.day);
  for (let offset = 0; offset <= SEARCH_DAYS; offset++) {
    const date = new Date(start + offset * DAY_MS);
    const open = openInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
    if (open !== null && open > nowMs && marketSession(open).open) return open / 1000;
  }
  return null;
}
