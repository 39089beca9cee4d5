/**
 * Schedules and the start date/time parsers. Every "now" is a fixed Date, and every expectation is
 * an exact UTC instant worked out by hand from the zone's offsets:
 * Europe/Berlin is UTC+1 (CET) in winter and UTC+2 (CEST) in summer, changing 2026-03-29 01:00Z and
 * 2026-10-25 01:00Z; America/New_York is UTC-5 (EST) and UTC-4 (EDT), changing 2026-03-08 07:00Z
 * and 2026-11-01 06:00Z.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FREQUENCIES,
  buildSchedule,
  isTimeZone,
  nextOccurrence,
  nextOccurrenceAfter,
  occurrence,
  parseStartDate,
  parseStartTime,
  previewOccurrences,
  type Frequency,
  type Schedule,
} from '../src/scans/schedule.js';

type Scheduled = Exclude<Frequency, 'Unmanaged'>;

/** A fixed clock reading, far from every date below, for schedules whose date and time are given. */
const NOW = new Date('2020-06-15T12:34:56.789Z');

/** A schedule anchored at local `YYYY-MM-DDTHH:mm` in `zone`, built the way the service builds one. */
function scheduleAt(frequency: Scheduled, zone: string, local: string): Schedule {
  const [date = '', time = ''] = local.split('T');
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return buildSchedule(
    { frequency, startDate: { year, month, day }, startTime: { hour, minute }, timeZone: zone },
    NOW,
  );
}

function occurrences(schedule: Schedule, count: number): string[] {
  return Array.from({ length: count }, (_, k) => occurrence(schedule, k).toISOString());
}

function isoOrNull(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

test('FREQUENCIES lists the API values in order', () => {
  assert.deepEqual(FREQUENCIES, ['One-time', 'Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly', 'Unmanaged']);
});

test('isTimeZone accepts real zone names and refuses the rest', () => {
  for (const name of ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires']) {
    assert.equal(isTimeZone(name), true, name);
  }
  for (const name of ['', ' ', 'Mars/Olympus', '+02:00', '-05:00', 'Z', 'Europe/', 'Berlin', 'local']) {
    assert.equal(isTimeZone(name), false, JSON.stringify(name));
  }
});

// ---------------------------------------------------------------------------------------------
// DST: every frequency keeps its wall-clock time across both changes, in both zones
// ---------------------------------------------------------------------------------------------

/** [zone, frequency, anchor at 09:00 local, occurrence 0, occurrence 1 (across the change)]. */
const ACROSS_DST: [string, Scheduled, string, string, string][] = [
  // Berlin, spring (CET 08:00Z -> CEST 07:00Z)
  ['Europe/Berlin', 'Daily', '2026-03-28', '2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z'],
  ['Europe/Berlin', 'Weekly', '2026-03-22', '2026-03-22T08:00:00.000Z', '2026-03-29T07:00:00.000Z'],
  ['Europe/Berlin', 'Monthly', '2026-03-15', '2026-03-15T08:00:00.000Z', '2026-04-15T07:00:00.000Z'],
  ['Europe/Berlin', 'Quarterly', '2026-01-15', '2026-01-15T08:00:00.000Z', '2026-04-15T07:00:00.000Z'],
  // 2025's change was on Mar 30, so Mar 29 2025 is still winter; Mar 29 2026 is summer.
  ['Europe/Berlin', 'Yearly', '2025-03-29', '2025-03-29T08:00:00.000Z', '2026-03-29T07:00:00.000Z'],
  // Berlin, autumn (CEST 07:00Z -> CET 08:00Z)
  ['Europe/Berlin', 'Daily', '2026-10-24', '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z'],
  ['Europe/Berlin', 'Weekly', '2026-10-18', '2026-10-18T07:00:00.000Z', '2026-10-25T08:00:00.000Z'],
  ['Europe/Berlin', 'Monthly', '2026-09-30', '2026-09-30T07:00:00.000Z', '2026-10-30T08:00:00.000Z'],
  ['Europe/Berlin', 'Quarterly', '2026-08-15', '2026-08-15T07:00:00.000Z', '2026-11-15T08:00:00.000Z'],
  // 2025's change was on Oct 26, so Oct 25 2025 is still summer; Oct 25 2026 is winter.
  ['Europe/Berlin', 'Yearly', '2025-10-25', '2025-10-25T07:00:00.000Z', '2026-10-25T08:00:00.000Z'],
  // New York, spring (EST 14:00Z -> EDT 13:00Z)
  ['America/New_York', 'Daily', '2026-03-07', '2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z'],
  ['America/New_York', 'Weekly', '2026-03-01', '2026-03-01T14:00:00.000Z', '2026-03-08T13:00:00.000Z'],
  ['America/New_York', 'Monthly', '2026-02-15', '2026-02-15T14:00:00.000Z', '2026-03-15T13:00:00.000Z'],
  ['America/New_York', 'Quarterly', '2025-12-15', '2025-12-15T14:00:00.000Z', '2026-03-15T13:00:00.000Z'],
  // 2025's change was on Mar 9.
  ['America/New_York', 'Yearly', '2025-03-08', '2025-03-08T14:00:00.000Z', '2026-03-08T13:00:00.000Z'],
  // New York, autumn (EDT 13:00Z -> EST 14:00Z)
  ['America/New_York', 'Daily', '2026-10-31', '2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z'],
  ['America/New_York', 'Weekly', '2026-10-25', '2026-10-25T13:00:00.000Z', '2026-11-01T14:00:00.000Z'],
  ['America/New_York', 'Monthly', '2026-10-15', '2026-10-15T13:00:00.000Z', '2026-11-15T14:00:00.000Z'],
  ['America/New_York', 'Quarterly', '2026-09-15', '2026-09-15T13:00:00.000Z', '2026-12-15T14:00:00.000Z'],
  // 2025's change was on Nov 2.
  ['America/New_York', 'Yearly', '2025-11-01', '2025-11-01T13:00:00.000Z', '2026-11-01T14:00:00.000Z'],
];

for (const [zone, frequency, date, first, second] of ACROSS_DST) {
  test(`${frequency} at 09:00 ${zone} from ${date} keeps 09:00 local across the DST change`, () => {
    const schedule = scheduleAt(frequency, zone, `${date}T09:00`);
    assert.deepEqual(occurrences(schedule, 2), [first, second]);
    // The scheduler's view gives the same instants.
    assert.equal(isoOrNull(nextOccurrence(schedule, new Date(first))), first);
    assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date(first))), second);
  });
}

test('One-time runs at the offset in force on its own date', () => {
  const rows: [string, string, string][] = [
    ['Europe/Berlin', '2026-03-28T09:00', '2026-03-28T08:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29T09:00', '2026-03-29T07:00:00.000Z'],
    ['Europe/Berlin', '2026-10-25T09:00', '2026-10-25T08:00:00.000Z'],
    ['America/New_York', '2026-03-08T09:00', '2026-03-08T13:00:00.000Z'],
    ['America/New_York', '2026-11-01T09:00', '2026-11-01T14:00:00.000Z'],
  ];
  for (const [zone, local, expected] of rows) {
    assert.equal(occurrence(scheduleAt('One-time', zone, local), 0).toISOString(), expected, `${zone} ${local}`);
  }
});

// ---------------------------------------------------------------------------------------------
// DST gap and overlap: each runs exactly once
// ---------------------------------------------------------------------------------------------

test('gap: 02:30 on spring-forward night in New York runs once, at 03:00 EDT', () => {
  const schedule = scheduleAt('Daily', 'America/New_York', '2026-03-06T02:30');
  assert.deepEqual(occurrences(schedule, 4), [
    '2026-03-06T07:30:00.000Z', // 02:30 EST
    '2026-03-07T07:30:00.000Z', // 02:30 EST
    '2026-03-08T07:00:00.000Z', // 02:30 does not exist: 03:00 EDT, the transition instant
    '2026-03-09T06:30:00.000Z', // 02:30 EDT
  ]);
  // Advancing from the gap day's run goes to the next day, not to some "03:30" the same day.
  assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date('2026-03-08T07:00:00.000Z'))), '2026-03-09T06:30:00.000Z');
});

test('gap: 02:30 on spring-forward night in Berlin runs once, at 03:00 CEST', () => {
  const schedule = scheduleAt('Daily', 'Europe/Berlin', '2026-03-28T02:30');
  assert.deepEqual(occurrences(schedule, 3), [
    '2026-03-28T01:30:00.000Z', // 02:30 CET
    '2026-03-29T01:00:00.000Z', // 03:00 CEST
    '2026-03-30T00:30:00.000Z', // 02:30 CEST
  ]);
  assert.deepEqual(
    previewOccurrences(schedule, new Date('2026-03-29T00:00:00.000Z'), 2).map((d) => d.toISOString()),
    ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'],
  );
});

test('gap: every wall-clock time inside the gap maps to the transition instant', () => {
  const rows: [string, string, string][] = [
    ['America/New_York', '2026-03-08T02:00', '2026-03-08T07:00:00.000Z'],
    ['America/New_York', '2026-03-08T02:59', '2026-03-08T07:00:00.000Z'],
    ['America/New_York', '2026-03-08T03:00', '2026-03-08T07:00:00.000Z'],
    ['America/New_York', '2026-03-08T01:59', '2026-03-08T06:59:00.000Z'],
    ['Europe/Berlin', '2026-03-29T02:00', '2026-03-29T01:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29T03:00', '2026-03-29T01:00:00.000Z'],
  ];
  for (const [zone, local, expected] of rows) {
    assert.equal(occurrence(scheduleAt('One-time', zone, local), 0).toISOString(), expected, `${zone} ${local}`);
  }
});

test('overlap: 01:30 on fall-back night in New York runs once, at the first (EDT) instant', () => {
  const schedule = scheduleAt('Daily', 'America/New_York', '2026-10-31T01:30');
  assert.deepEqual(occurrences(schedule, 3), [
    '2026-10-31T05:30:00.000Z', // 01:30 EDT
    '2026-11-01T05:30:00.000Z', // 01:30 EDT, the first of the two 01:30s
    '2026-11-02T06:30:00.000Z', // 01:30 EST
  ]);
  // The second 01:30 (06:30Z) is not a run: after the first, the next run is the next day.
  assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date('2026-11-01T05:30:00.000Z'))), '2026-11-02T06:30:00.000Z');
  assert.equal(isoOrNull(nextOccurrence(schedule, new Date('2026-11-01T06:00:00.000Z'))), '2026-11-02T06:30:00.000Z');
});

test('overlap: 02:30 on fall-back night in Berlin runs once, at the first (CEST) instant', () => {
  const schedule = scheduleAt('Daily', 'Europe/Berlin', '2026-10-24T02:30');
  assert.deepEqual(occurrences(schedule, 3), [
    '2026-10-24T00:30:00.000Z', // 02:30 CEST
    '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first of the two 02:30s
    '2026-10-26T01:30:00.000Z', // 02:30 CET
  ]);
  assert.deepEqual(
    previewOccurrences(schedule, new Date('2026-10-25T00:00:00.000Z'), 2).map((d) => d.toISOString()),
    ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
  );
});

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic: always from the anchor, clamped to the month's last day
// ---------------------------------------------------------------------------------------------

/** [frequency, anchor (09:00 UTC), the wall-clock dates of occurrences 0, 1, 2...]. */
const CALENDAR: [string, Scheduled, string, string[]][] = [
  [
    'Monthly from Jan 31 through a year',
    'Monthly',
    '2026-01-31',
    [
      '2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31',
      '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31', '2027-01-31',
    ],
  ],
  ['Monthly from Jan 31 in a leap year', 'Monthly', '2028-01-31', ['2028-01-31', '2028-02-29', '2028-03-31']],
  ['Monthly from Jan 30 across a non-leap Feb', 'Monthly', '2027-01-30', ['2027-01-30', '2027-02-28', '2027-03-30']],
  ['Monthly from Jan 30 across a leap Feb', 'Monthly', '2028-01-30', ['2028-01-30', '2028-02-29', '2028-03-30']],
  ['Monthly from Jan 29 across a non-leap Feb', 'Monthly', '2027-01-29', ['2027-01-29', '2027-02-28', '2027-03-29']],
  ['Monthly from Feb 29 keeps the 29th', 'Monthly', '2028-02-29', ['2028-02-29', '2028-03-29', '2028-04-29']],
  [
    'Quarterly from Nov 30 returns to the 30th after February',
    'Quarterly',
    '2026-11-30',
    ['2026-11-30', '2027-02-28', '2027-05-30', '2027-08-30', '2027-11-30', '2028-02-29'],
  ],
  [
    'Quarterly from May 31',
    'Quarterly',
    '2026-05-31',
    ['2026-05-31', '2026-08-31', '2026-11-30', '2027-02-28', '2027-05-31', '2027-08-31'],
  ],
  [
    'Yearly from Feb 29 2028 across 2029-2032',
    'Yearly',
    '2028-02-29',
    ['2028-02-29', '2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29'],
  ],
  ['Daily across the end of a non-leap Feb', 'Daily', '2027-02-27', ['2027-02-27', '2027-02-28', '2027-03-01']],
  ['Daily across the end of a leap Feb', 'Daily', '2028-02-28', ['2028-02-28', '2028-02-29', '2028-03-01']],
  ['Weekly across the new year', 'Weekly', '2026-12-24', ['2026-12-24', '2026-12-31', '2027-01-07']],
];

for (const [name, frequency, anchor, dates] of CALENDAR) {
  test(`calendar: ${name}`, () => {
    const schedule = scheduleAt(frequency, 'UTC', `${anchor}T09:00`);
    assert.deepEqual(
      occurrences(schedule, dates.length),
      dates.map((d) => `${d}T09:00:00.000Z`),
    );
  });
}

test('calendar: Monthly from Jan 31 in Berlin keeps 09:00 local while clamping', () => {
  const schedule = scheduleAt('Monthly', 'Europe/Berlin', '2026-01-31T09:00');
  assert.deepEqual(occurrences(schedule, 4), [
    '2026-01-31T08:00:00.000Z',
    '2026-02-28T08:00:00.000Z',
    '2026-03-31T07:00:00.000Z',
    '2026-04-30T07:00:00.000Z',
  ]);
});

test('calendar: occurrence k far from the anchor is computed from the anchor, not by stepping', () => {
  const schedule = scheduleAt('Monthly', 'UTC', '2026-01-31T09:00');
  assert.equal(occurrence(schedule, 25).toISOString(), '2028-02-29T09:00:00.000Z');
  assert.equal(occurrence(schedule, 1200).toISOString(), '2126-01-31T09:00:00.000Z');
});

// ---------------------------------------------------------------------------------------------
// One-time schedules
// ---------------------------------------------------------------------------------------------

test('One-time in the future: one occurrence, then nothing', () => {
  const schedule = scheduleAt('One-time', 'Europe/Berlin', '2026-07-01T09:00');
  const at = '2026-07-01T07:00:00.000Z';
  const before = new Date('2026-06-01T00:00:00.000Z');
  assert.equal(isoOrNull(nextOccurrence(schedule, before)), at);
  assert.equal(isoOrNull(nextOccurrence(schedule, new Date(at))), at, 'at or after includes the instant itself');
  assert.equal(isoOrNull(nextOccurrenceAfter(schedule, before)), at);
  assert.equal(nextOccurrenceAfter(schedule, new Date(at)), null, 'after firing there is nothing left');
  assert.deepEqual(previewOccurrences(schedule, before, 5).map((d) => d.toISOString()), [at]);
  assert.throws(() => occurrence(schedule, 1), RangeError);
});

test('One-time in the past: no next occurrence and an empty preview', () => {
  const schedule = scheduleAt('One-time', 'America/New_York', '2026-01-10T09:00');
  const from = new Date('2026-01-10T14:00:00.001Z');
  assert.equal(occurrence(schedule, 0).toISOString(), '2026-01-10T14:00:00.000Z');
  assert.equal(nextOccurrence(schedule, from), null);
  assert.equal(nextOccurrenceAfter(schedule, from), null);
  assert.deepEqual(previewOccurrences(schedule, from), []);
});

// ---------------------------------------------------------------------------------------------
// Advancing after downtime, and previews
// ---------------------------------------------------------------------------------------------

test('nextOccurrenceAfter a Daily scan 400 days late gives the next run, not a backlog', () => {
  const schedule = scheduleAt('Daily', 'Europe/Berlin', '2026-01-01T09:00');
  // Last fired 2026-01-01; the service wakes 400 days later, at noon UTC (13:00 CET).
  const woke = new Date('2027-02-05T12:00:00.000Z');
  assert.equal(isoOrNull(nextOccurrenceAfter(schedule, woke)), '2027-02-06T08:00:00.000Z');
  assert.deepEqual(
    previewOccurrences(schedule, woke, 2).map((d) => d.toISOString()),
    ['2027-02-06T08:00:00.000Z', '2027-02-07T08:00:00.000Z'],
  );
});

test('nextOccurrenceAfter is strict and nextOccurrence is inclusive, far from the anchor', () => {
  const rows: [Scheduled, string, string, string, string][] = [
    // [frequency, zone, anchor, an exact occurrence long after it, the one after that]
    ['Daily', 'Europe/Berlin', '2026-01-01T09:00', '2027-02-05T08:00:00.000Z', '2027-02-06T08:00:00.000Z'],
    // 2026-01-05 is a Monday; 2027-02-08 is 57 weeks later.
    ['Weekly', 'America/New_York', '2026-01-05T09:00', '2027-02-08T14:00:00.000Z', '2027-02-15T14:00:00.000Z'],
    ['Monthly', 'UTC', '2026-01-31T09:00', '2031-02-28T09:00:00.000Z', '2031-03-31T09:00:00.000Z'],
    ['Quarterly', 'Europe/Berlin', '2026-11-30T09:00', '2036-05-30T07:00:00.000Z', '2036-08-30T07:00:00.000Z'],
    ['Yearly', 'UTC', '2028-02-29T09:00', '2100-02-28T09:00:00.000Z', '2101-02-28T09:00:00.000Z'],
  ];
  for (const [frequency, zone, anchor, hit, following] of rows) {
    const schedule = scheduleAt(frequency, zone, anchor);
    const label = `${frequency} ${zone} ${anchor}`;
    assert.equal(isoOrNull(nextOccurrence(schedule, new Date(hit))), hit, label);
    assert.equal(isoOrNull(nextOccurrence(schedule, new Date(Date.parse(hit) - 1))), hit, label);
    assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date(Date.parse(hit) - 1))), hit, label);
    assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date(hit))), following, label);
  }
});

test('nextOccurrenceAfter centuries late lands on the right period', () => {
  // 182,000 daily periods after the anchor: the estimate-then-correct search must land exactly.
  // (No timing is asserted here: unit tests never time anything.)
  const rows: [Scheduled, string, string][] = [
    ['Daily', '2526-07-01T12:00:00.000Z', '2526-07-02T09:00:00.000Z'],
    ['Weekly', '2526-07-01T12:00:00.000Z', '2526-07-06T09:00:00.000Z'],
    ['Monthly', '2526-07-01T12:00:00.000Z', '2526-07-31T09:00:00.000Z'],
    ['Quarterly', '2526-07-01T12:00:00.000Z', '2526-07-31T09:00:00.000Z'],
    ['Yearly', '2526-07-01T12:00:00.000Z', '2527-01-31T09:00:00.000Z'],
  ];
  for (const [frequency, after, expected] of rows) {
    // 2026-01-31 is a Saturday; 2526-07-01 is a Monday (400 years are a whole number of weeks).
    const schedule = scheduleAt(frequency, 'UTC', '2026-01-31T09:00');
    assert.equal(isoOrNull(nextOccurrenceAfter(schedule, new Date(after))), expected, frequency);
  }
});

test('anything before the anchor gives the anchor', () => {
  const schedule = scheduleAt('Weekly', 'Europe/Berlin', '2026-05-04T18:15');
  const early = new Date('2020-01-01T00:00:00.000Z');
  assert.equal(isoOrNull(nextOccurrence(schedule, early)), '2026-05-04T16:15:00.000Z');
  assert.equal(isoOrNull(nextOccurrenceAfter(schedule, early)), '2026-05-04T16:15:00.000Z');
});

test('previewOccurrences gives the next five by default, from mid-period', () => {
  const schedule = scheduleAt('Monthly', 'America/New_York', '2026-01-31T09:00');
  const from = new Date('2026-02-10T00:00:00.000Z');
  assert.deepEqual(
    previewOccurrences(schedule, from).map((d) => d.toISOString()),
    [
      '2026-02-28T14:00:00.000Z',
      '2026-03-31T13:00:00.000Z',
      '2026-04-30T13:00:00.000Z',
      '2026-05-31T13:00:00.000Z',
      '2026-06-30T13:00:00.000Z',
    ],
  );
  assert.equal(previewOccurrences(schedule, from, 12).length, 12);
  assert.deepEqual(previewOccurrences(schedule, from, 0), []);
  assert.throws(() => previewOccurrences(schedule, from, -1), RangeError);
});

// ---------------------------------------------------------------------------------------------
// Building a schedule from the user's fields
// ---------------------------------------------------------------------------------------------

test('buildSchedule fills a missing date and time from now, in the zone', () => {
  // 23:10:42Z on Mar 1 is already 00:10 on Mar 2 in Berlin and still 18:10 on Mar 1 in New York.
  const now = new Date('2026-03-01T23:10:42.500Z');
  const rows: [string, { date?: string; time?: [number, number] }, string][] = [
    ['Europe/Berlin', {}, '2026-03-02T00:10'],
    ['America/New_York', {}, '2026-03-01T18:10'],
    ['Europe/Berlin', { time: [9, 30] }, '2026-03-02T09:30'],
    ['America/New_York', { time: [9, 30] }, '2026-03-01T09:30'],
    ['Europe/Berlin', { date: '2026-04-01' }, '2026-04-01T00:00'],
  ];
  for (const [zone, given, expected] of rows) {
    const [year, month, day] = (given.date ?? '').split('-').map(Number) as [number, number, number];
    const schedule = buildSchedule(
      {
        frequency: 'Daily',
        timeZone: zone,
        ...(given.date ? { startDate: { year, month, day } } : {}),
        ...(given.time ? { startTime: { hour: given.time[0], minute: given.time[1] } } : {}),
      },
      now,
    );
    const [date = '', time = ''] = expected.split('T');
    const [ey, em, ed] = date.split('-').map(Number);
    const [eh, emin] = time.split(':').map(Number);
    assert.deepEqual(
      schedule.anchor,
      { date: { year: ey, month: em, day: ed }, time: { hour: eh, minute: emin } },
      `${zone} ${JSON.stringify(given)}`,
    );
    assert.equal(schedule.timeZone, zone);
    assert.equal(schedule.frequency, 'Daily');
  }
});

test('buildSchedule refuses an unknown zone and impossible fields', () => {
  const date = { year: 2026, month: 2, day: 30 };
  assert.throws(() => buildSchedule({ frequency: 'Daily', timeZone: 'Mars/Olympus' }, NOW), RangeError);
  assert.throws(() => buildSchedule({ frequency: 'Daily', timeZone: 'UTC', startDate: date }, NOW), RangeError);
  assert.throws(
    () => buildSchedule({ frequency: 'Daily', timeZone: 'UTC', startTime: { hour: 24, minute: 0 } }, NOW),
    RangeError,
  );
});

// ---------------------------------------------------------------------------------------------
// Parsers
// ---------------------------------------------------------------------------------------------

test('parseStartDate accepts the documented forms', () => {
  const rows: [string, [number, number, number]][] = [
    ['2026-11-21', [2026, 11, 21]],
    ['2026/11/21', [2026, 11, 21]],
    ['2026-1-5', [2026, 1, 5]],
    ['21 Nov 2026', [2026, 11, 21]],
    ['Nov 21, 2026', [2026, 11, 21]],
    ['November 21 2026', [2026, 11, 21]],
    ['21-Nov-2026', [2026, 11, 21]],
    ['21 NOVEMBER 2026', [2026, 11, 21]],
    ['nov 21 2026', [2026, 11, 21]],
    ['Sept 3, 2026', [2026, 9, 3]],
    ['November 21st, 2026', [2026, 11, 21]],
    ['11/21/2026', [2026, 11, 21]],
    ['21/11/2026', [2026, 11, 21]],
    ['21.11.2026', [2026, 11, 21]],
    ['05/05/2026', [2026, 5, 5]],
    ['  2026-11-21  ', [2026, 11, 21]],
    ['2028-02-29', [2028, 2, 29]],
    ['2000-01-01', [2000, 1, 1]],
    ['2100-12-31', [2100, 12, 31]],
  ];
  for (const [text, [year, month, day]] of rows) {
    assert.deepEqual(parseStartDate(text), { ok: true, value: { year, month, day } }, text);
  }
});

test('parseStartDate rejects with a message that says why', () => {
  const rows: [string, RegExp][] = [
    ['03/04/2026', /ambiguous.*YYYY-MM-DD.*2026-04-03 or 2026-03-04/],
    ['2026-02-30', /real date: February 2026 has 28 days/],
    ['2025-02-29', /real date: February 2025 has 28 days/],
    ['2026-04-31', /real date: April 2026 has 30 days/],
    ['2026-13-01', /real date: there is no month 13/],
    ['21/13/2026', /real date/],
    ['1999-12-31', /year between 2000 and 2100/],
    ['2101-01-01', /year between 2000 and 2100/],
    ['21 Nov 1999', /year between 2000 and 2100/],
    ['11/21/26', /four-digit year/],
    ['', /must be a date such as 2026-11-21/],
    ['tomorrow', /must be a date such as 2026-11-21/],
    ['Smarch 21 2026', /must be a date such as 2026-11-21/],
    ['2026-11-21T09:00', /must be a date such as 2026-11-21/],
    ['21 Nov', /must be a date such as 2026-11-21/],
    ['Nov Dec 2026', /must be a date such as 2026-11-21/],
  ];
  for (const [text, message] of rows) {
    const result = parseStartDate(text);
    assert.equal(result.ok, false, text);
    if (!result.ok) {
      assert.match(result.error, message, text);
      assert.match(result.error, /^The scan start date field .*\.$/, text);
    }
  }
});

test('parseStartTime accepts 12-hour and 24-hour clock text', () => {
  const rows: [string, [number, number]][] = [
    ['9:30 AM', [9, 30]],
    ['09:30PM', [21, 30]],
    ['9:30pm', [21, 30]],
    ['12:00 AM', [0, 0]],
    ['12:15 PM', [12, 15]],
    ['12:59 am', [0, 59]],
    ['9 PM', [21, 0]],
    ['9am', [9, 0]],
    ['9:05 a.m.', [9, 5]],
    ['11:45 P.M.', [23, 45]],
    ['9\u202fPM', [21, 0]], // the narrow no-break space Intl and browsers put before AM/PM
    ['21:30', [21, 30]],
    ['00:00', [0, 0]],
    ['7:05', [7, 5]],
    ['23:59', [23, 59]],
    [' 9:30 AM ', [9, 30]],
  ];
  for (const [text, [hour, minute]] of rows) {
    assert.deepEqual(parseStartTime(text), { ok: true, value: { hour, minute } }, text);
  }
});

test('parseStartTime rejects with a message that says why', () => {
  const rows: [string, RegExp][] = [
    ['13:00 PM', /hour from 1 to 12 when it says AM or PM/],
    ['0:30 AM', /hour from 1 to 12 when it says AM or PM/],
    ['25:00', /hour from 0 to 23/],
    ['24:00', /hour from 0 to 23/],
    ['9:60 AM', /minutes from 00 to 59/],
    ['21:75', /minutes from 00 to 59/],
    ['', /must be a time such as 9:30 AM/],
    ['noon', /must be a time such as 9:30 AM/],
    ['9', /must be a time such as 9:30 AM/],
    ['9:5 AM', /must be a time such as 9:30 AM/],
    ['9:30 XM', /must be a time such as 9:30 AM/],
  ];
  for (const [text, message] of rows) {
    const result = parseStartTime(text);
    assert.equal(result.ok, false, text);
    if (!result.ok) {
      assert.match(result.error, message, text);
      assert.match(result.error, /^The scan start time field .*\.$/, text);
    }
  }
});
