/**
 * How the PDF report writes dates, durations, counts, endpoints and lists. Everything returned is
 * ready for the page (through `pdfLine`).
 */
import type { ReportFinding } from '../report.js';
import { grouped, pdfLine } from './text.js';
import { LIST_LIMIT } from './theme.js';

// The last date written, since a run's findings share a few (first and last seen).
let lastDate: { time: number; text: string } = { time: NaN, text: '' };

/** "2026-11-21 11:00:05 UTC", or "not recorded". */
export function formatUtc(date: Date | null): string {
  if (!date) return 'not recorded';
  const time = date.getTime();
  if (time !== lastDate.time) lastDate = { time, text: `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC` };
  return lastDate.text;
}

/** "1 h 5 min", "12 min 35 s" or "40 s". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h > 0) return `${h} h ${m} min`;
  return m > 0 ? `${m} min ${s} s` : `${s} s`;
}

/** "1 finding", "1,234 findings". */
export function plural(n: number, word: string): string {
  return `${grouped(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** "host:port/protocol (address)", the address only when it differs from the name. */
export function formatEndpoint(item: Pick<ReportFinding, 'hostname' | 'hostIp' | 'port' | 'protocol'>): string {
  const name = item.hostname || item.hostIp;
  const port = item.port === null ? '' : `:${item.port}${item.protocol ? `/${item.protocol}` : ''}`;
  const address = item.hostIp && item.hostIp !== name ? ` (${item.hostIp})` : '';
  return pdfLine(`${name}${port}${address}`);
}

/** The items joined by commas, "-" when there are none, "and N more" past `limit`. */
export function listOf(items: string[], limit = LIST_LIMIT): string {
  if (items.length === 0) return '-';
  const shown = items.slice(0, limit).join(', ');
  return pdfLine(items.length > limit ? `${shown} and ${items.length - limit} more` : shown, 2000);
}

/** The findings a narrative claim rests on: "[#12, #15]". */
export function citations(ids: number[]): string {
  return `[${ids.map((id) => `#${id}`).join(', ')}]`;
}
