/**
 * When a scan runs. A schedule is a frequency, an anchor (the first occurrence as wall-clock date
 * and time) and an IANA time zone. Occurrence k is the anchor's date plus k periods, at the
 * anchor's wall-clock time, so scans keep their local time across DST and never drift at month
 * ends. Pure functions of their inputs: "now" is always passed in, never read from the clock.
 *
 * Glossary: an *anchor* is occurrence 0; a *period* is one calendar step (a day, a week, a month,
 * three months or a year); a DST *gap* is a wall-clock hour that is skipped in spring, a DST
 * *overlap* one that happens twice in autumn.
 */
import { daysInMonth } from './schedule-input.js';
import type { LocalDate, LocalDateTime, LocalTime, ParseResult } from './schedule-types.js';
import { IANAZone } from 'luxon';

/** Every value of `scan_frequency`, in the order the API documents them. */
export const FREQUENCIES = ['One-time', 'Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly', 'Unmanaged'] as const;

/** A scan's frequency; `Unmanaged` scans are run by the account holder and have no schedule. */
export type Frequency = (typeof FREQUENCIES)[number];

export type { LocalDate, LocalDateTime, LocalTime, ParseResult } from './schedule-types.js';

/** A scan's schedule: what `buildSchedule` makes and every other function here reads. */
export interface Schedule {
  frequency: Exclude<Frequency, 'Unmanaged'>;
  /** The first occurrence's wall-clock date and time; recurring runs repeat from it. */
  anchor: LocalDateTime;
  timeZone: string;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The mean Gregorian month; only used to estimate an occurrence index, never to step. */
const MEAN_MONTH_MS = (365.2425 / 12) * DAY_MS;

interface Period {
  unit: 'day' | 'month';
  size: number;
}

const PERIODS: Record<Exclude<Frequency, 'Unmanaged' | 'One-time'>, Period> = {
  Daily: { unit: 'day', size: 1 },
  Weekly: { unit: 'day', size: 7 },
  Monthly: { unit: 'month', size: 1 },
  Quarterly: { unit: 'month', size: 3 },
  Yearly: { unit: 'month', size: 12 },
};

// ---------------------------------------------------------------------------------------------
// Time zones and wall-clock conversion
// ---------------------------------------------------------------------------------------------

/**
 * Whether `name` is a time zone name the runtime knows (`Europe/Berlin`, `UTC`, aliases such as
 * `US/Eastern`). Fixed offsets such as `+02:00` are refused even where Intl accepts them: they
 * ignore DST, which is rarely what a user who types one means.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  return IANAZone.isValidZone(name);
}

function zoneOf(name: string): IANAZone {
  if (!isTimeZone(name)) throw new RangeError(`Unknown time zone: ${JSON.stringify(name)}`);
  return IANAZone.create(name) as IANAZone;
}

/** The zone's UTC offset in milliseconds at instant `ms`. */
function offsetAt(zone: IANAZone, ms: number): number {
  return zone.offset(ms) * MINUTE_MS;
}

/** The wall-clock date and time in `zone` at instant `ms`, to the minute (seconds dropped). */
function wallClockAt(zone: IANAZone, ms: number): LocalDateTime {
  const shifted = new Date(ms + offsetAt(zone, ms));
  return {
    date: { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() },
    time: { hour: shifted.getUTCHours(), minute: shifted.getUTCMinutes() },
  };
}

/**
 * The instant a wall-clock time happens in `zone`. Twice in an overlap: the earlier one, so the
 * scan runs once. Never in a gap: the first instant after it (the transition itself, e.g. 03:00
 * for 02:30 on a spring-forward night), so the scan still runs that day and runs once.
 */
function toInstant(zone: IANAZone, at: LocalDateTime): number {
  const { date, time } = at;
  const wall = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute);
  // A day either side is far enough to see both offsets of any one transition.
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const valid = [wall - before, wall - after].filter((ms) => wall === ms + offsetAt(zone, ms));
  if (valid.length > 0) return Math.min(...valid);
  return findTransition(zone, wall - after, wall - before);
}

/** The first instant in (lo, hi] whose offset differs from lo's: binary search to the millisecond. */
function findTransition(zone: IANAZone, lo: number, hi: number): number {
  const initial = offsetAt(zone, lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid) === initial) lo = mid;
    else hi = mid;
  }
  return hi;
}

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic
// ---------------------------------------------------------------------------------------------


function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Clamps the day to the target month's length (Jan 31 + 1 month = Feb 28 or 29). */
function addMonths(date: LocalDate, months: number): LocalDate {
  const index = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(date.day, daysInMonth(year, month)) };
}

function isRealDate(date: LocalDate): boolean {
  const { year, month, day } = date;
  return [year, month, day].every(Number.isInteger) && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function isRealTime(time: LocalTime): boolean {
  const { hour, minute } = time;
  return Number.isInteger(hour) && Number.isInteger(minute) && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59;
}

// ---------------------------------------------------------------------------------------------
// Schedules
// ---------------------------------------------------------------------------------------------

/**
 * Builds the schedule from the user's fields. A missing date means today in the zone at `now`. A
 * missing time means 00:00 when a date is given, and the wall-clock time of `now` (to the minute,
 * seconds dropped) when the date is missing too; occurrence 0 may then be up to a minute before
 * `now`, so a caller that wants "run now" must treat occurrence 0 as due rather than ask
 * `nextOccurrence(schedule, now)`. Throws RangeError for an unknown zone or an impossible date
 * or time (the parsers never produce one).
 */
export function buildSchedule(
  input: { frequency: Exclude<Frequency, 'Unmanaged'>; startDate?: LocalDate; startTime?: LocalTime; timeZone: string },
  now: Date,
): Schedule {
  const zone = zoneOf(input.timeZone);
  if (input.frequency !== 'One-time' && !(input.frequency in PERIODS)) {
    throw new RangeError(`A ${String(input.frequency)} scan has no schedule`);
  }
  const current = wallClockAt(zone, now.getTime());
  const date = input.startDate ?? current.date;
  const time = input.startTime ?? (input.startDate ? { hour: 0, minute: 0 } : current.time);
  if (!isRealDate(date)) throw new RangeError(`Not a real date: ${JSON.stringify(date)}`);
  if (!isRealTime(time)) throw new RangeError(`Not a real time: ${JSON.stringify(time)}`);
  return { frequency: input.frequency, anchor: { date: { ...date }, time: { ...time } }, timeZone: input.timeZone };
}

/** The wall-clock date of occurrence k: always counted from the anchor, so month ends never drift. */
function occurrenceDate(schedule: Schedule, k: number): LocalDate {
  const { date } = schedule.anchor;
  if (schedule.frequency === 'One-time') return date;
  const period = PERIODS[schedule.frequency];
  return period.unit === 'day' ? addDays(date, k * period.size) : addMonths(date, k * period.size);
}

function occurrenceMs(zone: IANAZone, schedule: Schedule, k: number): number {
  return toInstant(zone, { date: occurrenceDate(schedule, k), time: schedule.anchor.time });
}

/**
 * The instant of occurrence number k (k = 0 is the anchor). Throws RangeError for a k that is not
 * a non-negative integer, and for k > 0 on a One-time schedule.
 */
export function occurrence(schedule: Schedule, k: number): Date {
  if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`Occurrence index must be a non-negative integer, got ${k}`);
  if (schedule.frequency === 'One-time' && k > 0) throw new RangeError('A One-time schedule has only occurrence 0');
  return new Date(occurrenceMs(zoneOf(schedule.timeZone), schedule, k));
}

/**
 * The index of the first occurrence at or after `fromMs`, or null when there is none. The index is
 * estimated from the elapsed time and then corrected, so the cost does not grow with the number of
 * periods between the anchor and `fromMs`.
 */
function firstIndexFrom(schedule: Schedule, fromMs: number): number | null {
  const zone = zoneOf(schedule.timeZone);
  const anchorMs = occurrenceMs(zone, schedule, 0);
  if (fromMs <= anchorMs) return 0;
  if (schedule.frequency === 'One-time') return null;
  const period = PERIODS[schedule.frequency];
  const nominal = period.size * (period.unit === 'day' ? DAY_MS : MEAN_MONTH_MS);
  let k = Math.floor((fromMs - anchorMs) / nominal);
  // The estimate is off by at most one period (DST moves instants by hours, month lengths vary by
  // days, clamping by at most three), so each loop takes a step or two, not one per period.
  while (k > 0 && occurrenceMs(zone, schedule, k - 1) >= fromMs) k -= 1;
  while (occurrenceMs(zone, schedule, k) < fromMs) k += 1;
  return k;
}

/** The first occurrence at or after `from` (null for a One-time schedule whose only occurrence is before `from`). */
export function nextOccurrence(schedule: Schedule, from: Date): Date | null {
  const k = firstIndexFrom(schedule, from.getTime());
  return k === null ? null : occurrence(schedule, k);
}

/**
 * The first occurrence strictly after `after`, or null. Used to advance a schedule after it fired:
 * periods missed while the service was down are skipped, never replayed.
 */
export function nextOccurrenceAfter(schedule: Schedule, after: Date): Date | null {
  // Instants are whole milliseconds, so "strictly after t" is "at or after t + 1 ms".
  return nextOccurrence(schedule, new Date(after.getTime() + 1));
}

/** Up to `count` upcoming occurrences at or after `from` (a One-time schedule gives at most one). */
export function previewOccurrences(schedule: Schedule, from: Date, count = 5): Date[] {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Count must be a non-negative integer, got ${count}`);
  const first = firstIndexFrom(schedule, from.getTime());
  if (first === null || count === 0) return [];
  const total = schedule.frequency === 'One-time' ? 1 : count;
  return Array.from({ length: total }, (_, i) => occurrence(schedule, first + i));
}

// The parsers for the user's free-form date and time fields live in schedule-input.ts.
export { parseStartDate, parseStartTime } from './schedule-input.js';
