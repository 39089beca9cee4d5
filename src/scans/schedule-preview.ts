/**
 * Schedules shown before they are saved: what the form's fields would do, and a stored start in
 * the forms a browser's date and time inputs take.
 */
import { DateTime } from 'luxon';
import { validationError, type FieldErrors } from '../shared/errors.js';
import type { CreateScanBody } from './scans.schema.js';
import { firstRun } from './scan-schedule.js';
import { buildSchedule, FREQUENCIES, isTimeZone, parseStartDate, parseStartTime, previewOccurrences } from './schedule.js';

/** A run time as the scan's zone reads it: `2026-12-01 21:30 CET`. */
export function localTime(at: Date, timeZone: string): string {
  return DateTime.fromJSDate(at, { zone: timeZone }).toFormat('yyyy-LL-dd HH:mm ZZZZ');
}

/** What a schedule typed into the form would do: whether it runs at once, and its next occurrences. */
export interface SchedulePreview {
  runsNow: boolean;
  upcoming: { at: string; local: string }[];
}

/**
 * The runs a new scan's schedule fields would give (the form's "Preview schedule"), computed as
 * createScan computes them; 422 on the fields for a bad date, time or zone. Unmanaged: no runs.
 */
export function previewNewSchedule(
  clock: () => Date,
  input: { frequency: CreateScanBody['scan_frequency']; startDate?: string | null; startTime?: string | null; timeZone: string },
  count = 5,
): SchedulePreview {
  const errors: FieldErrors = {};
  if (!(FREQUENCIES as readonly string[]).includes(input.frequency)) errors.scan_frequency = [`The selected scan frequency is invalid (one of ${FREQUENCIES.join(', ')}).`];
  if (!isTimeZone(input.timeZone)) errors.scan_time_zone = ['The scan time zone must be an IANA time zone name, such as Europe/Berlin or America/New_York.'];
  const date = input.startDate?.trim() ? parseStartDate(input.startDate) : undefined;
  const time = input.startTime?.trim() ? parseStartTime(input.startTime) : undefined;
  if (date && !date.ok) errors.scan_start_date = [date.error];
  if (time && !time.ok) errors.scan_start_time = [time.error];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  if (input.frequency === 'Unmanaged') return { runsNow: false, upcoming: [] };
  const startDate = date?.ok ? date.value : undefined;
  const startTime = time?.ok ? time.value : undefined;
  const now = clock();
  const schedule = buildSchedule({ frequency: input.frequency, timeZone: input.timeZone, ...(startDate ? { startDate } : {}), ...(startTime ? { startTime } : {}) }, now);
  const plan = firstRun(schedule, now, { explicitStart: Boolean(startDate || startTime) });
  const upcoming = plan.nextRunAt ? previewOccurrences(schedule, plan.nextRunAt, plan.runNow ? count - 1 : count) : [];
  return {
    runsNow: plan.runNow,
    upcoming: upcoming.map((at) => ({ at: at.toISOString(), local: localTime(at, input.timeZone) })),
  };
}

/**
 * A stored start date and time in the forms a browser's date and time inputs take (`2026-12-01`,
 * `21:30`): a scan made through the API may hold `Dec 1, 2026` and `9:30 PM`. Text that does not
 * parse is returned as it is.
 */
export function startAsInputs(date: string | null, time: string | null): { date: string; time: string } {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const parsedDate = date ? parseStartDate(date) : undefined;
  const parsedTime = time ? parseStartTime(time) : undefined;
  return {
    date: parsedDate?.ok ? `${pad(parsedDate.value.year, 4)}-${pad(parsedDate.value.month)}-${pad(parsedDate.value.day)}` : (date ?? ''),
    time: parsedTime?.ok ? `${pad(parsedTime.value.hour)}:${pad(parsedTime.value.minute)}` : (time ?? ''),
  };
}
