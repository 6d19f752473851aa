// NYSE session calendar: fixed timestamps around hours, holidays, early closes and DST switches.
import { deepStrictEqual, throws } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isEarlyCloseDay, marketSession, newYorkWallClock, nyseHolidays } from '../../../src/risk/market-hours.js';

const OPEN = { open: true, session: 'regular', reason: null };
const EARLY = { open: true, session: 'early_close', reason: null };
const AFTER_HOURS = { open: false, session: 'closed', reason: 'outside_hours' };
const WEEKEND = { open: false, session: 'closed', reason: 'weekend' };
const HOLIDAY = { open: false, session: 'closed', reason: 'holiday' };

/** UTC instant of a New York wall-clock time; `offsetHours` is 5 under EST, 4 under EDT. */
function ny(date: string, time: string, offsetHours: 4 | 5): number {
  return Date.parse(`${date}T${time}:00-0${offsetHours}:00`);
}

describe('marketSession: regular hours (09:30-16:00 America/New_York)', () => {
  it('a normal Tuesday', () => {
    deepStrictEqual(marketSession(ny('2026-01-06', '10:00', 5)), OPEN);
    deepStrictEqual(marketSession(ny('2026-01-06', '09:29', 5)), AFTER_HOURS);
    deepStrictEqual(marketSession(ny('2026-01-06', '09:30', 5)), OPEN);
    deepStrictEqual(marketSession(ny('2026-01-06', '15:59', 5)), OPEN);
    deepStrictEqual(marketSession(ny('2026-01-06', '16:00', 5)), AFTER_HOURS);
  });

  it('a Saturday and a Sunday', () => {
    deepStrictEqual(marketSession(ny('2026-01-10', '12:00', 5)), WEEKEND);
    deepStrictEqual(marketSession(ny('2026-01-11', '12:00', 5)), WEEKEND);
  });

  it('is the session of each instant asked, whichever instant came before: the open and the millisecond before it, back and forth', () => {
    const open = ny('2026-01-06', '09:30', 5);
    for (const [instant, session] of [[open - 1, AFTER_HOURS], [open, OPEN], [open + 59_999, OPEN], [open - 1, AFTER_HOURS], [open - 60_000, AFTER_HOURS], [open, OPEN]] as const) {
      deepStrictEqual(marketSession(instant), session);
    }
  });

  it('rejects a timestamp that is not a date', () => {
    throws(() => marketSession(Number.NaN), RangeError);
    for (const instant of [Infinity, -Infinity, 8.64e15 + 1, -8.64e15 - 1]) throws(() => marketSession(instant), RangeError);
  });
});

describe('marketSession: exchange holidays', () => {
  it('Thanksgiving 2026 (Thursday November 26)', () => {
    deepStrictEqual(marketSession(ny('2026-11-26', '12:00', 5)), HOLIDAY);
  });

  it('Good Friday 2026 (April 3)', () => {
    deepStrictEqual(marketSession(ny('2026-04-03', '12:00', 4)), HOLIDAY);
  });

  it('Juneteenth 2026 (Friday June 19)', () => {
    deepStrictEqual(marketSession(ny('2026-06-19', '12:00', 4)), HOLIDAY);
  });

  it('July 3 2026 is the observed Independence Day (July 4 is a Saturday); July 2 is a full day', () => {
    deepStrictEqual(marketSession(ny('2026-07-03', '12:00', 4)), HOLIDAY);
    deepStrictEqual(marketSession(ny('2026-07-02', '15:30', 4)), OPEN);
  });

  it('Friday Dec 31 2021 traded although Jan 1 2022 was a Saturday', () => {
    deepStrictEqual(marketSession(ny('2021-12-31', '10:00', 5)), OPEN);
  });

  it('the unscheduled closure for President Carter (January 9 2025)', () => {
    deepStrictEqual(marketSession(ny('2025-01-09', '12:00', 5)), HOLIDAY);
  });

  it('the full 2026 holiday set', () => {
    deepStrictEqual([...nyseHolidays(2026)], [
      '2026-01-01', '2026-01-19', '2026-02-16', '2026-04-03', '2026-05-25',
      '2026-06-19', '2026-07-03', '2026-09-07', '2026-11-26', '2026-12-25',
    ]);
  });

  it('Good Friday over several years', () => {
    const goodFridays = ['2024-03-29', '2025-04-18', '2026-04-03', '2027-03-26', '2028-04-14'];
    deepStrictEqual(goodFridays.map((d) => nyseHolidays(Number(d.slice(0, 4))).has(d)), [true, true, true, true, true]);
  });
});

describe('marketSession: early closes at 13:00', () => {
  it('Black Friday 2026: 12:59 open, 13:00 closed', () => {
    deepStrictEqual(marketSession(ny('2026-11-27', '12:59', 5)), EARLY);
    deepStrictEqual(marketSession(ny('2026-11-27', '13:00', 5)), AFTER_HOURS);
  });

  it('Christmas Eve 2026 (Thursday)', () => {
    deepStrictEqual(marketSession(ny('2026-12-24', '12:00', 5)), EARLY);
    deepStrictEqual(marketSession(ny('2026-12-24', '13:00', 5)), AFTER_HOURS);
  });

  it('July 3 2025 (Thursday, July 4 a Friday)', () => {
    deepStrictEqual(marketSession(ny('2025-07-03', '12:59', 4)), EARLY);
    deepStrictEqual(marketSession(ny('2025-07-03', '13:00', 4)), AFTER_HOURS);
  });

  it('Christmas Eve 2021 was the observed Christmas holiday, not an early close', () => {
    deepStrictEqual(marketSession(ny('2021-12-24', '10:00', 5)), HOLIDAY);
  });

  it('isEarlyCloseDay for a few dates', () => {
    const days: Array<[number, number, number]> = [[2026, 11, 27], [2026, 11, 26], [2026, 7, 3], [2028, 7, 3], [2027, 12, 24], [2026, 12, 24]];
    deepStrictEqual(days.map(([y, m, d]) => isEarlyCloseDay(y, m, d)), [true, false, false, true, false, true]);
  });
});

describe('marketSession: daylight-saving boundaries', () => {
  it('March 2026: EST on Friday the 6th, EDT on Monday the 9th', () => {
    deepStrictEqual(marketSession(Date.parse('2026-03-06T14:29:00Z')), AFTER_HOURS);
    deepStrictEqual(marketSession(Date.parse('2026-03-06T14:30:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-03-09T13:29:00Z')), AFTER_HOURS);
    deepStrictEqual(marketSession(Date.parse('2026-03-09T13:30:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-03-09T19:59:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-03-09T20:00:00Z')), AFTER_HOURS);
  });

  it('November 2026: EDT on Friday October 30, EST on Monday November 2', () => {
    deepStrictEqual(marketSession(Date.parse('2026-10-30T13:30:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-10-30T20:00:00Z')), AFTER_HOURS);
    deepStrictEqual(marketSession(Date.parse('2026-11-02T14:29:00Z')), AFTER_HOURS);
    deepStrictEqual(marketSession(Date.parse('2026-11-02T14:30:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-11-02T20:59:00Z')), OPEN);
    deepStrictEqual(marketSession(Date.parse('2026-11-02T21:00:00Z')), AFTER_HOURS);
  });
});

describe('newYorkWallClock: the per-hour offset memo agrees with Intl at every instant', () => {
  const reference = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York', hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
  });
  function viaIntl(ms: number): { year: number; month: number; day: number; minuteOfDay: number } {
    const p = Object.fromEntries(reference.formatToParts(ms).filter((x) => x.type !== 'literal').map((x) => [x.type, Number(x.value)]));
    return { year: p.year!, month: p.month!, day: p.day!, minuteOfDay: p.hour! * 60 + p.minute! };
  }
  // DST transition instants (2026, the first and last years in range), probed up to 90 minutes either side.
  const transitions = ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '1970-04-26T07:00:00Z', '2099-11-01T06:00:00Z'].map(Date.parse);
  const nearTransition = fc.tuple(fc.constantFrom(...transitions), fc.integer({ min: -90 * 60_000, max: 90 * 60_000 })).map(([t, d]) => t + d);

  it('matches Intl for arbitrary instants 1970-2100 and around DST switches', () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }), nearTransition), (ms) => {
      deepStrictEqual(newYorkWallClock(ms), viaIntl(ms));
    }), { numRuns: 5000 });
  });
});
