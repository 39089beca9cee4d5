/**
 * The wall-clock values of a scan's schedule. Their own file because both the input parsers
 * (schedule-input.ts) and the calendar (schedule.ts, which re-exports them) use them, and the
 * calendar uses the parsers' month arithmetic.
 */

/** A wall-clock date in the scan's zone; month is 1-12. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** A wall-clock time in the scan's zone: hour 0-23, minute 0-59. */
export interface LocalTime {
  hour: number;
  minute: number;
}

/** A wall-clock date and time in the scan's zone. */
export interface LocalDateTime {
  date: LocalDate;
  time: LocalTime;
}

/** A parser's answer: the value, or an error message fit for a 422. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };
