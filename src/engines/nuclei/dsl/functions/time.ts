/**
 * Time helpers of projectdiscovery/dsl. Upstream formats in the host's local zone; we use UTC so
 * results do not depend on where Rampart runs. wait_for never sleeps (see DECISIONS).
 */
import { DslError, toInteger, toText, type DslValue } from '../values.js';
import { INVALID_SIGNATURE, type FunctionTable } from './types.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Go reference-time layout elements, longest first so "2006" wins over "2". */
const LAYOUT = /January|Monday|2006|-07:00|Z07:00|-0700|Z0700|\.0+|\.9+|Jan|Mon|MST|_2|01|02|03|04|05|06|15|PM|pm|1|2|3|4|5/g;

/** Formats a UTC date with a Go layout such as "2006-01-02 15:04:05". */
export function formatGoLayout(date: Date, layout: string): string {
  return layout.replace(LAYOUT, (element) => {
    const hour = date.getUTCHours();
    switch (element) {
      case 'January': return MONTHS[date.getUTCMonth()] as string;
      case 'Jan': return (MONTHS[date.getUTCMonth()] as string).slice(0, 3);
      case 'Monday': return DAYS[date.getUTCDay()] as string;
      case 'Mon': return (DAYS[date.getUTCDay()] as string).slice(0, 3);
      case '2006': return pad(date.getUTCFullYear(), 4);
      case '06': return pad(date.getUTCFullYear() % 100);
      case '01': return pad(date.getUTCMonth() + 1);
      case '1': return String(date.getUTCMonth() + 1);
      case '02': return pad(date.getUTCDate());
      case '_2': return String(date.getUTCDate()).padStart(2, ' ');
      case '2': return String(date.getUTCDate());
      case '15': return pad(hour);
      case '03': return pad(hour % 12 || 12);
      case '3': return String(hour % 12 || 12);
      case '04': return pad(date.getUTCMinutes());
      case '4': return String(date.getUTCMinutes());
      case '05': return pad(date.getUTCSeconds());
      case '5': return String(date.getUTCSeconds());
      case 'PM': return hour >= 12 ? 'PM' : 'AM';
      case 'pm': return hour >= 12 ? 'pm' : 'am';
      case 'MST': return 'UTC';
      case 'Z07:00': case 'Z0700': return 'Z';
      case '-07:00': return '+00:00';
      case '-0700': return '+0000';
      default: // fractional seconds
        return element.startsWith('.9') ? '' : `.${pad(date.getUTCMilliseconds(), 3).padEnd(element.length - 1, '0').slice(0, element.length - 1)}`;
    }
  });
}

/** The moment a date_time call describes: now, or the optional Unix seconds argument. */
function momentOf(args: DslValue[]): Date | DslError {
  if (args.length < 2) return new Date();
  const seconds = typeof args[1] === 'string' ? (/^[+-]?\d+$/.test(args[1]) ? Number(args[1]) : NaN) : toInteger(args[1]);
  if (seconds instanceof DslError || Number.isNaN(seconds)) return new DslError('invalid argument type');
  return new Date(seconds * 1000);
}

/** Upstream's default layouts for to_unix_time, as patterns (UTC unless the input names a zone). */
const DEFAULT_LAYOUTS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(?: ?(Z|[+-]\d{2}:\d{2}))?$/;

/** Time functions. */
export const TIME_FUNCTIONS: FunctionTable = {
  date_time: {
    call: (args) => {
      if (args.length < 1 || args.length > 2) return new DslError(INVALID_SIGNATURE);
      const format = toText(args[0]);
      const moment = momentOf(args);
      if (moment instanceof DslError) return moment;
      if (!/%[A-Za-z]/.test(format)) return formatGoLayout(moment, format);
      const fields: Record<string, number> = {
        Y: moment.getUTCFullYear(), y: moment.getUTCFullYear(), M: moment.getUTCMonth() + 1, D: moment.getUTCDate(), d: moment.getUTCDate(),
        H: moment.getUTCHours(), h: moment.getUTCHours(), m: moment.getUTCMinutes(), S: moment.getUTCSeconds(), s: moment.getUTCSeconds(),
      };
      const bad = /%([A-Za-z])/g.exec(format.replace(/%[YyMDdHhmSs]/g, ''));
      if (bad) return new DslError(`invalid date time format string: ${bad[0]}`);
      return format.replace(/%([YyMDdHhmSs])/g, (_, key: string) => pad(fields[key] as number));
    },
  },
  unix_time: {
    call: (args) => {
      if (args.length > 1) return new DslError(INVALID_SIGNATURE);
      const offset = args.length === 1 ? toInteger(args[0]) : 0;
      return offset instanceof DslError ? offset : Math.floor(Date.now() / 1000) + offset;
    },
  },
  to_unix_time: {
    call: (args) => {
      if (args.length !== 1) return new DslError(args.length === 2 ? 'to_unix_time: custom layouts are not supported' : INVALID_SIGNATURE);
      const input = toText(args[0]);
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(input)) return Math.trunc(Number(input));
      const match = DEFAULT_LAYOUTS.exec(input);
      if (!match) return new DslError('could not parse the current input with the default layouts');
      const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = match;
      let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
      if (zone && zone !== 'Z') seconds -= (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
      return seconds;
    },
  },
  // Upstream sleeps; a pure evaluator must not block a scan worker, so the wait is the caller's job.
  wait_for: {
    call: (args) => {
      if (args.length !== 1) return new DslError(INVALID_SIGNATURE);
      const seconds = toInteger(args[0]);
      return seconds instanceof DslError ? seconds : true;
    },
  },
};
