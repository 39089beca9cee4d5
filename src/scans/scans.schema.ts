/** Request and response schemas of the scan endpoints (spec "Scans", "Scan run summary"). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../http/schemas.js';
import { SCAN_TYPES } from '../shared/scan-types.js';

export { SCAN_TYPES };
export const SCAN_FREQUENCIES = ['One-time', 'Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly', 'Unmanaged'] as const;
/** The schedules of an Unmanaged scan's runs awaiting the local agent. */
export const AGENT_FREQUENCIES = ['One-time', 'Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly'] as const;
const AGENT_FREQUENCY_TEXT =
  'Unmanaged scans only: when a run awaits the local agent. One-time (default): one run, at creation; otherwise a run at each occurrence of ' +
  'scan_start_date/scan_start_time in scan_time_zone, taken by an agent running with --daemon. A run no agent took before the next is due ends as missed; one an agent still runs then is stopped (cancelled, error_kind deadline).';

/** The fields a scan is created with and that an update may change, with one set of rules. */
const ScanFields = {
  scan_name: Type.String({ minLength: 1, maxLength: 255 }),
  scan_frequency: StringEnum(SCAN_FREQUENCIES),
  scan_start_date: Nullable(Type.String({ maxLength: 25, description: 'Free-form date, e.g. 2026-12-01 or Dec 1, 2026' })),
  scan_start_time: Nullable(Type.String({ maxLength: 10, description: 'Clock time, e.g. 9:30 PM' })),
  scan_time_zone: Type.String({ minLength: 1, maxLength: 35, description: 'IANA time zone, e.g. Europe/Berlin' }),
  scan_email: Type.String({ format: 'email', maxLength: 100 }),
  scan_target: Type.String({ minLength: 1, description: 'Hosts, IPs or CIDR ranges (http(s) URLs for ZAP, and for Nuclei too), separated by commas, spaces or newlines' }),
  engine_options: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description:
        'Rampart extension: options of the engine serving the scan type, checked against its own schema (a bad one is a 422 naming engine_options.<option>). ' +
        'Rampart and OpenVas scans (Rampart network scanner): ports ("default", "all" or a list of ports), rate_per_second, max_concurrency and connect_timeout_ms, ' +
        "each at most the deployment's setting. An update replaces the options whole.",
  }),
};

export const CreateScanBodySchema = Type.Object({
  scan_name: ScanFields.scan_name,
  scan_type: StringEnum(SCAN_TYPES),
  scan_frequency: ScanFields.scan_frequency,
  agent_frequency: Type.Optional(StringEnum(AGENT_FREQUENCIES, { description: AGENT_FREQUENCY_TEXT })),
  scan_start_date: Type.Optional(ScanFields.scan_start_date),
  scan_start_time: Type.Optional(ScanFields.scan_start_time),
  scan_time_zone: ScanFields.scan_time_zone,
  scan_email: ScanFields.scan_email,
  scan_target: ScanFields.scan_target,
  zap_authenticated: Type.Optional(Type.Boolean({ default: false })),
  zap_login_script: Type.Optional(Nullable(Type.String({ contentEncoding: 'base64', description: 'Base64 of a Python login script' }))),
  include_attack_narrative: Type.Optional(Type.Boolean({ default: false })),
  engine_options: Type.Optional(ScanFields.engine_options),
});
export type CreateScanBody = Static<typeof CreateScanBodySchema>;

export const UpdateScanBodySchema = Type.Object(
  {
    scan_name: Type.Optional(ScanFields.scan_name),
    scan_frequency: Type.Optional({ ...ScanFields.scan_frequency, description: 'Not to or from Unmanaged; the schedule is recomputed' }),
    agent_frequency: Type.Optional(StringEnum(AGENT_FREQUENCIES, { description: `${AGENT_FREQUENCY_TEXT} The schedule is recomputed.` })),
    scan_start_date: Type.Optional({ ...ScanFields.scan_start_date, description: 'Free-form date; null or empty removes it. The schedule is recomputed' }),
    scan_start_time: Type.Optional({ ...ScanFields.scan_start_time, description: 'Clock time; null or empty removes it. The schedule is recomputed' }),
    scan_time_zone: Type.Optional({ ...ScanFields.scan_time_zone, description: 'IANA time zone; the schedule keeps its local time in the new zone' }),
    scan_email: Type.Optional(ScanFields.scan_email),
    scan_target: Type.Optional({ ...ScanFields.scan_target, description: 'Replaces the targets; checked as at creation. A run already going keeps its targets' }),
    zap_authenticated: Type.Optional(Type.Boolean()),
    zap_login_script: Type.Optional(Type.String({ contentEncoding: 'base64' })),
    remove_login_script: Type.Optional(Type.Boolean()),
    include_attack_narrative: Type.Optional(Type.Boolean()),
    engine_options: Type.Optional(ScanFields.engine_options),
  },
  { description: 'Only the fields sent change. Any other field, scan_type included, is a 422 naming it.' },
);
export type UpdateScanBody = Static<typeof UpdateScanBodySchema>;
/** The fields an update may carry; any other is refused by name. */
export const UPDATABLE_SCAN_FIELDS: readonly string[] = Object.keys(UpdateScanBodySchema.properties);

export const ScanSchema = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String({ format: 'uuid' }),
    user_id: Type.Integer(),
    scan_name: Type.String(),
    scan_type: StringEnum(SCAN_TYPES),
    scan_target: Type.String(),
    zap_authenticated: Type.Boolean(),
    zap_login_script: Nullable(Type.String({ description: 'Storage path of the login script, relative to the data directory' })),
    include_attack_narrative: Type.Boolean(),
    engine_options: { ...ScanFields.engine_options, description: 'Rampart extension: the options set for the engine ({} when none)' },
    scan_frequency: StringEnum(SCAN_FREQUENCIES),
    agent_frequency: Nullable(StringEnum(AGENT_FREQUENCIES, { description: 'Rampart extension: the schedule of an Unmanaged scan\'s runs awaiting the local agent; null for other scans' })),
    scan_start_date: Nullable(Type.String()),
    scan_start_time: Nullable(Type.String()),
    scan_time_zone: Type.String(),
    scan_email: Type.String(),
    next_run_at: Nullable(Type.String({ format: 'date-time' })),
    current_progress: Nullable(Type.String({ description: 'Progress of the latest run' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Scan' },
);
export type ScanResource = Static<typeof ScanSchema>;

export const RunSchema = Type.Object({
  run_index: Type.Integer(),
  run_folder: Type.Integer(),
  status: StringEnum(['current', 'completed'] as const),
  outcome: Nullable(StringEnum(['succeeded', 'failed', 'cancelled'] as const)),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  scan_progress: Type.String(),
  available_formats: Type.Array(StringEnum(['pdf', 'csv', 'html', 'txt', 'xml'] as const)),
  trigger: StringEnum(['create', 'schedule', 'rerun', 'import'] as const),
  engine: Nullable(Type.String()),
  engine_version: Nullable(Type.String()),
  engine_detail: Nullable(Type.String({ description: 'What the engine said of this run beyond its name and version, e.g. "via daemon"' })),
  queued_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  error: Nullable(Type.String()),
  error_kind: Nullable(
    StringEnum(['network-temporary', 'network-permanent', 'deadline', 'config', 'internal', 'missed'] as const, {
      description:
        'Whose fault a failure was: the target or network (network-*), time (deadline), the deployment (config: a tool missing or misconfigured), a bug (internal), or no local agent took a scheduled Unmanaged run before the next was due (missed)',
    }),
  ),
  hosts_up: Type.Integer(),
  hosts_down: Type.Integer(),
  findings_count: Type.Integer(),
  lifecycle: Type.Object(
    {
      new: Type.Integer({ description: 'Findings this scan had not seen before' }),
      still_open: Type.Integer({ description: 'Findings the previous run saw too' }),
      fixed: Type.Integer({ description: 'Findings the previous run saw and this one did not (only a completed run calls anything fixed)' }),
      regressed: Type.Integer({ description: 'Findings fixed in an earlier run and back in this one' }),
    },
    { description: 'How the findings of this run compare with the previous successful run of the scan' },
  ),
  notes: Type.Array(Type.String(), { description: 'What the run could not check and why' }),
});
export type RunResource = Static<typeof RunSchema>;

export const RunsSummarySchema = Type.Object({
  scan: Type.Object({
    uuid: Type.String(),
    name: Type.String(),
    type: Type.String(),
    current_progress: Type.String(),
    run_count: Type.Integer({ description: 'Completed runs' }),
    total_runs: Type.Integer({ description: 'All runs, the current one included' }),
  }),
  runs: Type.Array(RunSchema),
});

export const SchedulePreviewSchema = Type.Object({
  scan_frequency: StringEnum(SCAN_FREQUENCIES),
  scan_time_zone: Type.String(),
  next_run_at: Nullable(Type.String({ format: 'date-time' })),
  upcoming: Type.Array(Type.Object({ at: Type.String({ format: 'date-time' }), local: Type.String() })),
});
