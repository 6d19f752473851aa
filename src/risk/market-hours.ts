// NYSE regular-session calendar in America/New_York: weekends, exchange holidays and early closes.
import { getHolidays } from 'nyse-holidays';
import { RecentMap } from '../memo/recent-map.js';

export interface MarketSession {
  open: boolean;
  session: 'regular' | 'early_close' | 'closed';
  reason: 'weekend' | 'holiday' | 'outside_hours' | null;
}

const OPEN_MINUTE = 9 * 60 + 30; // 09:30 ET
const CLOSE_MINUTE = 16 * 60; // 16:00 ET
const EARLY_CLOSE_MINUTE = 13 * 60; // 13:00 ET

/**
 * Unscheduled full-day closures since 2000 that nyse-holidays 1.2 does not list
 * (September 11 attacks, national days of mourning, Hurricane Sandy).
 */
const UNSCHEDULED_CLOSURES: readonly string[] = [
  '2001-09-11', '2001-09-12', '2001-09-13', '2001-09-14',
  '2004-06-11', '2007-01-02', '2012-10-29', '2012-10-30',
  '2018-12-05', '2025-01-09',
];

// hourCycle h23 so midnight reads 00, never 24; the zone's rules give DST for free.
const NEW_YORK = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  minuteOfDay: number;
}

const HOUR_MS = 3_600_000;
const OFFSET_CACHE_LIMIT = 4096;
const offsetByHour = new RecentMap<number, number>(OFFSET_CACHE_LIMIT);

/** New York's UTC offset in ms for the UTC hour holding `hourStartMs`, read through Intl. */
function intlOffsetMs(hourStartMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of NEW_YORK.formatToParts(hourStartMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wallAsUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return wallAsUtc - hourStartMs;
}

/**
 * Intl's formatToParts costs ~10 us, most of an evaluation. Since 1883 New York's offset only
 * changes on a UTC hour boundary (02:00 local), so one Intl call per UTC hour is exact; the
 * memo is bounded and purely a cache.
 */
export function newYorkWallClock(nowMs: number): WallClock {
  const hour = Math.floor(nowMs / HOUR_MS);
  let offset = offsetByHour.get(hour);
  if (offset === undefined) {
    offset = intlOffsetMs(hour * HOUR_MS);
    offsetByHour.set(hour, offset);
  }
  const local = new Date(nowMs + offset);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    minuteOfDay: local.getUTCHours() * 60 + local.getUTCMinutes(),
  };
}

/** Day of week (0 = Sunday) of a civil date; pure arithmetic, independent of the host zone. */
function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

function dateKey(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const holidayCache = new Map<number, ReadonlySet<string>>();

/**
 * Full-day closures for one year, memoized. Only `dateString` is used: the package's `date`
 * and `isHoliday` work in the host's local zone, not New York's.
 */
export function nyseHolidays(year: number): ReadonlySet<string> {
  let set = holidayCache.get(year);
  if (set === undefined) {
    const keys = getHolidays(year).map((holiday) => holiday.dateString);
    for (const closure of UNSCHEDULED_CLOSURES) if (closure.startsWith(`${year}-`)) keys.push(closure);
    // NYSE does not close on Friday Dec 31 when Jan 1 falls on a Saturday; the package agrees,
    // and this filter keeps it so if a future version changes its observed-date rule.
    set = new Set(keys.filter((key) => !key.endsWith('-12-31')));
    holidayCache.set(year, set);
  }
  return set;
}

/**
 * Trading days that close at 13:00: the day after Thanksgiving (fourth Thursday of November),
 * Christmas Eve and July 3. Weekends and holidays are not trading days, so never early closes.
 */
export function isEarlyCloseDay(year: number, month: number, day: number): boolean {
  const dow = weekday(year, month, day);
  if (dow === 0 || dow === 6 || nyseHolidays(year).has(dateKey(year, month, day))) return false;
  if (month === 11) {
    const firstThursday = 1 + ((4 - weekday(year, 11, 1) + 7) % 7);
    return day === firstThursday + 22;
  }
  if (month === 12 && day === 24) return true;
  // July 3 only when July 4 is a weekday too; a Friday July 3 is the observed holiday instead.
  return month === 7 && day === 3 && dow !== 5;
}

const CLOSED_WEEKEND: MarketSession = Object.freeze({ open: false, session: 'closed', reason: 'weekend' });
const CLOSED_HOLIDAY: MarketSession = Object.freeze({ open: false, session: 'closed', reason: 'holiday' });
const CLOSED_HOURS: MarketSession = Object.freeze({ open: false, session: 'closed', reason: 'outside_hours' });
const OPEN_REGULAR: MarketSession = Object.freeze({ open: true, session: 'regular', reason: null });
const OPEN_EARLY: MarketSession = Object.freeze({ open: true, session: 'early_close', reason: null });

/** A whole-day closure, or the minute (ET) at which the trading day closes. */
type DayStatus = MarketSession | number;

const DAY_CACHE_LIMIT = 4096;
const dayCache = new RecentMap<number, DayStatus>(DAY_CACHE_LIMIT);

function dayStatus(year: number, month: number, day: number): DayStatus {
  const key = (year * 13 + month) * 32 + day;
  let status = dayCache.get(key);
  if (status === undefined) {
    const dow = weekday(year, month, day);
    if (dow === 0 || dow === 6) status = CLOSED_WEEKEND;
    else if (nyseHolidays(year).has(dateKey(year, month, day))) status = CLOSED_HOLIDAY;
    else status = isEarlyCloseDay(year, month, day) ? EARLY_CLOSE_MINUTE : CLOSE_MINUTE;
    dayCache.set(key, status);
  }
  return status;
}

/** NYSE regular session (09:30-16:00 ET, 13:00 on early-close days) at `nowMs` (ARCHITECTURE.md "Market hours"). */
export function marketSession(nowMs: number): MarketSession {
  // What Date accepts (ECMA-262 TimeClip): at most 8.64e15 ms either side of the epoch; NaN fails the test too.
  if (!(Math.abs(nowMs) <= MAX_TIME_MS)) {
    throw new RangeError(`marketSession: nowMs must be a valid epoch millisecond value, got ${nowMs}`);
  }
  const minute = Math.floor(nowMs / MINUTE_MS);
  if (minute !== lastSession.minute) lastSession = { minute, session: sessionAt(nowMs) };
  return lastSession.session;
}

const MAX_TIME_MS = 8.64e15;
const MINUTE_MS = 60_000;

/**
 * The session of the UTC minute last asked. New York's offset is whole minutes and fixed within a UTC hour
 * (newYorkWallClock), so every instant of a UTC minute has one wall-clock minute and one session: the verdicts
 * of a minute read the calendar once (ARCHITECTURE.md "Market hours").
 */
let lastSession: { minute: number; session: MarketSession } = { minute: NaN, session: CLOSED_HOURS };

function sessionAt(nowMs: number): MarketSession {
  const { year, month, day, minuteOfDay } = newYorkWallClock(nowMs);
  const status = dayStatus(year, month, day);
  if (typeof status !== 'number') return status;
  if (minuteOfDay < OPEN_MINUTE || minuteOfDay >= status) return CLOSED_HOURS;
  return status === EARLY_CLOSE_MINUTE ? OPEN_EARLY : OPEN_REGULAR;
}
