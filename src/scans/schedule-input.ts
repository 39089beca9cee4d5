/**
 * Parsers for a scan's free-form schedule fields: `scan_start_date` and `scan_start_time` as the
 * user typed them, turned into a wall-clock date or time, or into an error message fit for a 422.
 * Re-exported by `schedule.ts`; the types they produce are in `schedule-types.ts`.
 */
import type { LocalDate, LocalTime, ParseResult } from './schedule-types.js';

const MIN_YEAR = 2000;
const MAX_YEAR = 2100;
const MONTH_NAMES = [
  'january', 'february', 'march', 'april', 'may', 'june',
  'july', 'august', 'september', 'october', 'november', 'december',
] as const;

const DATE_FORMS = 'The scan start date field must be a date such as 2026-11-21, 21 Nov 2026 or November 21 2026.';
const DATE_FORMS_YEAR =
  'The scan start date field must be a date with a four-digit year, such as 2026-11-21, 21 Nov 2026 or November 21 2026.';
const TIME_FORMS = 'The scan start time field must be a time such as 9:30 AM, 9 PM or 21:30.';

/** Days in a month (1-12) of a year; schedule.ts uses it too. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function fail<T>(error: string): ParseResult<T> {
  return { ok: false, error };
}

/** 'Nov', 'november', 'Sept' -> 11, 11, 9; anything else -> undefined. */
function monthFromName(word: string): number | undefined {
  const w = word.toLowerCase();
  if (w === 'sept') return 9;
  const index = MONTH_NAMES.findIndex((name) => name === w || (w.length === 3 && name.startsWith(w)));
  return index === -1 ? undefined : index + 1;
}

/**
 * Parses `scan_start_date`. Lenient but unambiguous: year first (`2026-11-21`, `2026/11/21`), a
 * month name anywhere (`21 Nov 2026`, `Nov 21, 2026`, `21-Nov-2026`, `November 21st 2026`), or
 * day and month with the year last (`11/21/2026`, `21.11.2026`) when one of them is over 12 or
 * both are equal. Returns the date, or an error message fit for a 422.
 */
export function parseStartDate(text: string): ParseResult<LocalDate> {
  const trimmed = text.trim();
  const tokens = trimmed.split(/[\s,/.-]+/);
  if (tokens.length !== 3 || tokens.some((t) => !/^[a-z0-9]+$/i.test(t))) return fail(DATE_FORMS);
  const words = tokens.filter((t) => /^[a-z]+$/i.test(t));
  const parsed = words.length === 0 ? readNumericDate(tokens, trimmed) : readNamedDate(tokens, words);
  if (!parsed.ok) return parsed;
  return checkDate(parsed.value);
}

/** Three numbers: year first, or day and month in either order with the year last. */
function readNumericDate(tokens: string[], shown: string): ParseResult<LocalDate> {
  if (!tokens.every((t) => /^\d+$/.test(t))) return fail(DATE_FORMS);
  const [a, b, c] = tokens as [string, string, string];
  if (a.length === 4 && b.length <= 2 && c.length <= 2) return { ok: true, value: { year: +a, month: +b, day: +c } };
  if (c.length !== 4 || a.length > 2 || b.length > 2) return fail(DATE_FORMS_YEAR);
  const [first, second, year] = [+a, +b, +c];
  if (first > 12 && second <= 12) return { ok: true, value: { year, month: second, day: first } };
  if ((second > 12 && first <= 12) || first === second) return { ok: true, value: { year, month: first, day: second } };
  if (first > 12) return fail(`The scan start date field must be a real date: ${shown} has no month in it.`);
  const dayFirst = formatIsoDate({ year, month: second, day: first });
  const monthFirst = formatIsoDate({ year, month: first, day: second });
  return fail(
    `The scan start date field is ambiguous: ${shown} could be day/month or month/day. ` +
      `Write it as YYYY-MM-DD, e.g. ${dayFirst} or ${monthFirst}.`,
  );
}

/** One month name, a four-digit year and a day (optionally 1st, 2nd, 21st...), in any order. */
function readNamedDate(tokens: string[], words: string[]): ParseResult<LocalDate> {
  const [word] = words;
  const month = words.length === 1 && word !== undefined ? monthFromName(word) : undefined;
  if (month === undefined) return fail(DATE_FORMS);
  const rest = tokens.filter((t) => t !== word);
  const year = rest.find((t) => /^\d{4}$/.test(t));
  const day = rest.find((t) => /^\d{1,2}(st|nd|rd|th)?$/i.test(t));
  if (rest.length !== 2 || year === undefined || day === undefined) return fail(DATE_FORMS);
  return { ok: true, value: { year: +year, month, day: parseInt(day, 10) } };
}

function checkDate(date: LocalDate): ParseResult<LocalDate> {
  const { year, month, day } = date;
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return fail(`The scan start date field must have a year between ${MIN_YEAR} and ${MAX_YEAR}.`);
  }
  if (month < 1 || month > 12) return fail(`The scan start date field must be a real date: there is no month ${month}.`);
  const length = daysInMonth(year, month);
  if (day < 1 || day > length) {
    const name = MONTH_NAMES[month - 1] ?? '';
    const monthName = name.charAt(0).toUpperCase() + name.slice(1);
    return fail(`The scan start date field must be a real date: ${monthName} ${year} has ${length} days.`);
  }
  return { ok: true, value: date };
}

function formatIsoDate(date: LocalDate): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.year}-${pad(date.month)}-${pad(date.day)}`;
}

/**
 * Parses `scan_start_time`: 12-hour clock text (`9:30 AM`, `09:30PM`, `9 PM`, `9:05 a.m.`, where
 * 12:00 AM is midnight and 12:15 PM a quarter past noon) or 24-hour `21:30`. A dot may stand for
 * the colon. Returns the time, or an error message fit for a 422.
 */
export function parseStartTime(text: string): ParseResult<LocalTime> {
  const t = text.trim().toLowerCase();
  const twelve = /^(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s*m\.?$/.exec(t);
  if (twelve) return readTwelveHour(Number(twelve[1]), Number(twelve[2] ?? 0), twelve[3] === 'p');
  const clock = /^(\d{1,2})[:.](\d{2})$/.exec(t);
  if (clock) return readTwentyFourHour(Number(clock[1]), Number(clock[2]));
  return fail(TIME_FORMS);
}

function readTwelveHour(hour: number, minute: number, pm: boolean): ParseResult<LocalTime> {
  if (hour < 1 || hour > 12) {
    return fail('The scan start time field must have an hour from 1 to 12 when it says AM or PM (or use 24-hour time such as 21:30).');
  }
  if (minute > 59) return fail('The scan start time field must have minutes from 00 to 59.');
  // 12 AM is midnight and 12 PM is noon: the 12 wraps to 0 before the PM half-day is added.
  return { ok: true, value: { hour: (hour % 12) + (pm ? 12 : 0), minute } };
}

function readTwentyFourHour(hour: number, minute: number): ParseResult<LocalTime> {
  if (hour > 23) return fail('The scan start time field must have an hour from 0 to 23 (or 1 to 12 with AM or PM).');
  if (minute > 59) return fail('The scan start time field must have minutes from 00 to 59.');
  return { ok: true, value: { hour, minute } };
}
