/**
 * The fields of a stored finding, defined once: for each field of the Vulnerability resource its
 * schema, the store column it comes from, its name in a `Finding` (what engines and importers
 * produce) and in a report's finding, and whether the CSV export shows it. The store's rows
 * (`findings.service.ts`), the API resource and its schema (`findings.schema.ts`), the MCP tools
 * (built from the routes' schemas), the CSV export and the CSV report all derive from this list;
 * the html, txt, xml and pdf reports lay out the fields they show by hand. Adding a field: add it
 * to `Finding` (src/shared/finding.ts), here, to a migration, and to the renderers that show it.
 *
 * The order of this list is the order of the resource's properties and of the CSV columns (the
 * export's contract: new columns go at the end).
 */
import { Type, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../http/schemas.js';
import { LIFECYCLES, QOD, STATUSES, THREATS, type Finding } from '../shared/finding.js';

/** One field of the Vulnerability resource. */
export interface FindingField<S extends TSchema = TSchema> {
  schema: S;
  /** The column of the findings row (or of its joined scan) it is read from; the resource name when absent. */
  column?: string;
  /** Its name in a `Finding` and in a report's finding (camelCase); absent when neither has it. */
  key?: string;
  /** Written from the engine's `Finding` when stored (with this value when the finding has none). */
  stored?: { whenAbsent: unknown };
  /** Overwritten when the finding is seen again (descriptive fields follow the latest report). */
  refreshed?: boolean;
  /** Reports take it from the scan, not the finding. */
  scan?: 'name' | 'uuid' | 'type';
  /** A timestamp: a Date in rows and reports, ISO 8601 in the resource and CSV. */
  date?: boolean;
  /** A column of the CSV export and the CSV report. */
  csv: boolean;
}

function field<S extends TSchema>(schema: S, options: Omit<FindingField<S>, 'schema'>): FindingField<S> {
  return { schema, ...options };
}

/** A field an engine's `Finding` carries under `key`, stored in its column and refreshed when seen again. */
function reported<S extends TSchema>(schema: S, key: keyof Finding, options: Partial<Omit<FindingField<S>, 'schema' | 'key'>> = {}): FindingField<S> {
  return { schema, key, stored: { whenAbsent: null }, refreshed: true, csv: true, ...options };
}

const date = (description?: string) => field(Type.String({ format: 'date-time', ...(description ? { description } : {}) }), { csv: true, date: true });

/** Every field of the Vulnerability resource, in resource and CSV order. */
export const FINDING_FIELDS = {
  id: field(Type.Integer(), { key: 'id', csv: true }),
  name: reported(Type.String(), 'name'),
  threat: reported(StringEnum(THREATS), 'threat'),
  cvss_base: reported(Nullable(Type.Number()), 'cvssBase'),
  cvss_vector: reported(Nullable(Type.String()), 'cvssVector'),
  cve: reported(Type.Array(Type.String()), 'cve'),
  cwe: reported(Nullable(Type.String()), 'cwe'),
  // The location's network part is the identity itself: never refreshed.
  hostname: reported(Type.String(), 'hostname', { refreshed: false }),
  host_ip: reported(Type.String(), 'hostIp', { refreshed: false }),
  port: reported(Nullable(Type.Integer()), 'port', { refreshed: false }),
  protocol: reported(Nullable(Type.String()), 'protocol', { refreshed: false }),
  service: reported(Nullable(Type.String()), 'service'),
  scan_name: field(Type.String(), { scan: 'name', csv: true }),
  scan_uuid: field(Type.String({ format: 'uuid' }), { scan: 'uuid', csv: true }),
  run_index: field(Type.Integer({ description: 'The run that last saw it' }), { csv: false }),
  target_id: field(Nullable(Type.Integer()), { csv: false }),
  scan_type: field(Type.String(), { scan: 'type', csv: true }),
  engine: field(Type.String({ description: 'The engine that reported it last' }), { key: 'engine', csv: true }),
  engines: field(Type.Array(Type.String(), { description: 'Every engine that reported it: one finding per weakness, whichever engines saw it' }), {
    key: 'engines',
    csv: true,
  }),
  // Kept from the first report, as before issue 13 (`engine` is the latest one's).
  rule_id: reported(Type.String(), 'ruleId', { refreshed: false }),
  status: field(StringEnum(STATUSES), { key: 'status', csv: true }),
  lifecycle: field(
    Nullable(
      StringEnum(LIFECYCLES, {
        description:
          'Its label in the latest run that judged it: new, still_open (the previous run saw it too), fixed (the previous run saw it, the latest did not) or regressed (fixed before, back now)',
      }),
    ),
    { key: 'lifecycle', csv: true },
  ),
  kev: reported(Type.Boolean({ description: 'In the CISA Known Exploited Vulnerabilities catalog' }), 'kev', { stored: { whenAbsent: false } }),
  epss: reported(Nullable(Type.Number({ description: 'FIRST EPSS probability, 0-1' })), 'epss'),
  first_seen_at: { ...date(), key: 'firstSeenAt' },
  last_seen_at: { ...date(), key: 'lastSeenAt' },
  created_at: { ...date(), csv: false },
  updated_at: { ...date(), csv: false },
  description: reported(Type.String(), 'description'),
  solution: reported(Type.String(), 'solution'),
  evidence: reported(Type.String({ description: "What was seen; with several engines, each engine's evidence under its name (at most 16 KiB each, secrets masked)" }), 'evidence'),
  evidence_by_engine: field(Type.Record(Type.String(), Type.String(), { description: 'What each engine saw, by engine name' }), { column: 'engine_evidence', csv: false }),
  references: reported(Type.Array(Type.String()), 'references'),
  url: reported(Nullable(Type.String({ description: 'Web findings: the URL the weakness was proven at, as the tool reported it; null for network findings' })), 'url'),
  method: reported(Nullable(Type.String({ description: 'Web findings: the HTTP method of the proving request; null for network findings' })), 'method'),
  parameter: reported(Nullable(Type.String({ description: 'Web findings: the vulnerable input (query, form, header or cookie name); null when none or for network findings' })), 'parameter'),
  qod: reported(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        'Quality of detection (an extension, on the OpenVAS scale): 95 a test proved it, 80 inferred from an upstream version, 30 from a version a distribution patches in place (the fix may have been backported); imported findings keep their tool\'s figure. Reports hide findings below 70 unless asked otherwise',
    }),
    'qod',
    { stored: { whenAbsent: QOD.confirmed } },
  ),
} as const;

export type FindingFieldName = keyof typeof FINDING_FIELDS;

/** The fields as [name, field] pairs, in order. */
export const FIELD_ENTRIES = Object.entries(FINDING_FIELDS) as [FindingFieldName, FindingField][];

/** The store column a field is read from. */
export function columnOf(name: FindingFieldName): string {
  return (FINDING_FIELDS[name] as FindingField).column ?? name;
}

/** The schemas of the fields, as `Type.Object` takes them (so the resource's static type follows). */
export function fieldSchemas(): { [K in FindingFieldName]: (typeof FINDING_FIELDS)[K]['schema'] } {
  return Object.fromEntries(FIELD_ENTRIES.map(([name, f]) => [name, f.schema])) as { [K in FindingFieldName]: (typeof FINDING_FIELDS)[K]['schema'] };
}

/** The columns of the CSV export and the CSV report, in order. */
export const CSV_FIELDS = FIELD_ENTRIES.filter(([, f]) => f.csv).map(([name]) => name);

/** Fields an engine's Finding carries into the store: [column, key in Finding, value when absent]. */
export const STORED_FIELDS = FIELD_ENTRIES.flatMap(([name, f]) => (f.stored && f.key ? [[columnOf(name), f.key as keyof Finding, f.stored.whenAbsent] as const] : []));

/** Columns a finding seen again overwrites with the new report's values. */
export const REFRESHED_COLUMNS = FIELD_ENTRIES.filter(([, f]) => f.refreshed).map(([name]) => columnOf(name));
