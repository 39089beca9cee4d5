/** The link between a stored scan and the schedule math of schedule.ts. */
import type { Scan } from '../db/schema.js';
import { buildSchedule, nextOccurrence, nextOccurrenceAfter, occurrence, type LocalDate, type LocalTime, type Schedule } from './schedule.js';

/** `YYYY-MM-DDTHH:mm`, the anchor as stored on the scan. */
export function formatAnchor(schedule: Schedule): string {
  const { date, time } = schedule.anchor;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(date.year, 4)}-${p(date.month)}-${p(date.day)}T${p(time.hour)}:${p(time.minute)}`;
}

/** The frequency a scan's runs follow: its own, or for an Unmanaged scan its agent runs' (null: none after the first). */
export function runFrequency(scan: Pick<Scan, 'scan_frequency' | 'agent_frequency'>): Schedule['frequency'] | null {
  return scan.scan_frequency === 'Unmanaged' ? scan.agent_frequency : scan.scan_frequency;
}

/** The scan's schedule, or null for an Unmanaged scan without an agent schedule. */
export function scheduleOf(scan: Scan): Schedule | null {
  const frequency = runFrequency(scan);
  if (!frequency || !scan.schedule_anchor) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(scan.schedule_anchor);
  if (!m) return null;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  return { frequency, anchor: { date: { year, month, day }, time: { hour, minute } }, timeZone: scan.scan_time_zone };
}

/**
 * When a new scan first runs. Without a start date or time it runs now (and recurring scans then
 * repeat from now). With one, it runs at the first occurrence not in the past; a One-time scan
 * whose start has passed runs now.
 */
export function firstRun(schedule: Schedule, now: Date, options: { explicitStart: boolean }): { runNow: boolean; nextRunAt: Date | null } {
  if (schedule.frequency === 'One-time') {
    const at = occurrence(schedule, 0);
    return at.getTime() > now.getTime() ? { runNow: false, nextRunAt: at } : { runNow: true, nextRunAt: null };
  }
  if (!options.explicitStart) return { runNow: true, nextRunAt: nextOccurrenceAfter(schedule, now) };
  const next = nextOccurrence(schedule, now);
  return { runNow: false, nextRunAt: next };
}

/** After a scheduled firing: the first occurrence after now, so missed periods are not replayed. */
export function advance(schedule: Schedule, now: Date): Date | null {
  if (schedule.frequency === 'One-time') return null;
  return nextOccurrenceAfter(schedule, now);
}

/**
 * A scan's schedule after an update of its frequency, zone or start, and its next run. With a
 * start date or time the anchor is rebuilt from them; without, the scan keeps its anchor's local
 * date and time (a scan that ran daily at 09:00 runs at 09:00 in its new zone, or weekly from
 * that day). The next run is the first occurrence not in the past: an update never runs a scan
 * itself (rerun does), so a One-time scan whose moment has passed has no next run.
 */
export function reschedule(
  previous: Schedule | null,
  input: { frequency: Schedule['frequency']; startDate: LocalDate | undefined; startTime: LocalTime | undefined; timeZone: string },
  now: Date,
): { schedule: Schedule; nextRunAt: Date | null } {
  const { frequency, startDate, startTime, timeZone } = input;
  const schedule =
    startDate || startTime || !previous
      ? buildSchedule({ frequency, timeZone, ...(startDate ? { startDate } : {}), ...(startTime ? { startTime } : {}) }, now)
      : { frequency, anchor: previous.anchor, timeZone };
  if (frequency === 'One-time') {
    const at = occurrence(schedule, 0);
    return { schedule, nextRunAt: at.getTime() >= now.getTime() ? at : null };
  }
  return { schedule, nextRunAt: nextOccurrence(schedule, now) };
}
