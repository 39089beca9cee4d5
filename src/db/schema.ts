/**
 * Row types of every table, as Kysely sees them. The migrations in `migrations/` are the source
 * of truth; keep this file in step with them.
 */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Role } from '../shared/roles.js';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface SettingsTable {
  key: string;
  value: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  password_hash: string | null;
  role: Role;
  email_verified_at: Date | null;
  /** Set by an admin: the account can neither sign in nor use its keys and tokens. */
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A signed-in browser (src/accounts/sessions.service.ts). */
export interface WebSessionsTable {
  /** SHA-256 of the cookie's token. */
  id_hash: string;
  user_id: number;
  created_at: CreatedAt;
  last_seen_at: ColumnType<Date, Date | undefined, Date>;
  /** Moves forward on use: a session left alone ends here. */
  idle_expires_at: Date;
  /** Never moves: every session ends here, used or not. */
  expires_at: Date;
  user_agent: string | null;
  address: string | null;
}

/** Failed sign-ins per account email or client address, for lock-out and back-off. */
export interface AuthThrottlesTable {
  key: string;
  failures: ColumnType<number, number | undefined, number>;
  window_started_at: ColumnType<Date, Date | undefined, Date>;
  locked_until: Date | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export type EmailTokenPurpose = 'verify-email' | 'reset-password' | 'change-email';

/** A link sent by email: single use, expiring; only the token's SHA-256 is kept. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: number;
  purpose: EmailTokenPurpose;
  /** The address the link was sent to (the new address for change-email). */
  email: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

/** An OpenID Connect sign-in in flight, keyed by the SHA-256 of its `state`. */
export interface OidcLoginsTable {
  state_hash: string;
  code_verifier: string;
  nonce: string;
  /** The local path to return to after sign-in. */
  return_to: string;
  expires_at: Date;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** The visible part of the key, e.g. `rk_3fA9c0de`; unique, safe to show and log. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
}

export interface AgentRegistrationsTable {
  id: string;
  email: string;
  name: string | null;
  key_name: string | null;
  code_hash: string;
  /** SHA-256 of the claim token only the starting client holds; null on rows from before 0011. */
  claim_token_hash: string | null;
  /** The client address that started it (the per-client cap); null on rows from before 0011. */
  client_address: string | null;
  attempts: Generated<number>;
  expires_at: Date;
  claimed_at: Date | null;
  created_at: CreatedAt;
}

export type ScanType = 'Rampart' | 'OpenVas' | 'ZAP' | 'Nuclei';
/** The schedule of an Unmanaged scan's agent runs (scans.agent_frequency; One-time is stored as null). */
export type AgentFrequency = 'Daily' | 'Weekly' | 'Monthly' | 'Quarterly' | 'Yearly';
export type ScanFrequency = 'One-time' | 'Daily' | 'Weekly' | 'Monthly' | 'Quarterly' | 'Yearly' | 'Unmanaged';
export type RunStatus = 'current' | 'completed';
export type RunOutcome = 'succeeded' | 'failed' | 'cancelled';
/** EngineErrorKind of src/engines/engine.ts, as the runs table stores it. */
/** Whose fault a failure was; 'missed': a scheduled run no agent took before the next was due (migration 0021). */
export type RunErrorKind = 'network-temporary' | 'network-permanent' | 'deadline' | 'config' | 'internal' | 'missed';
export type ThreatLevel = 'Critical' | 'High' | 'Medium' | 'Low' | 'Informational';

export interface ScansTable {
  id: Generated<number>;
  uuid: string;
  user_id: number;
  scan_name: string;
  scan_type: ScanType;
  /** The targets as normalised text, separated by ", ". */
  scan_target: string;
  /** The parsed targets (`ParsedTarget[]` of scans/targets.ts). */
  targets: ColumnType<unknown, string, string>;
  /** The scan's options for the engine serving its type (validated against its schema at creation). */
  engine_options: ColumnType<Record<string, unknown>, string | undefined, string>;
  zap_authenticated: Generated<boolean>;
  /** Storage path of the login script, relative to the data directory. */
  zap_login_script: string | null;
  /** The login script's text (null for scans stored before migration 0019: read the file). */
  login_script: ColumnType<string | null, string | null | undefined, string | null>;
  include_attack_narrative: Generated<boolean>;
  scan_frequency: ScanFrequency;
  scan_start_date: string | null;
  scan_start_time: string | null;
  scan_time_zone: string;
  scan_email: string;
  /** First occurrence as local wall-clock `YYYY-MM-DDTHH:mm`; recurring runs repeat from it. */
  schedule_anchor: string | null;
  next_run_at: Date | null;
  /** An Unmanaged scan's schedule of runs awaiting the agent; null: one run, at creation (migration 0021). */
  agent_frequency: ColumnType<AgentFrequency | null, AgentFrequency | null | undefined, AgentFrequency | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** What starts a run: the scan's creation, its schedule, a rerun, or an upload of results. */
export type RunTrigger = 'create' | 'schedule' | 'rerun' | 'import';

export interface RunsTable {
  id: Generated<number>;
  scan_id: number;
  run_index: number;
  status: ColumnType<RunStatus, RunStatus | undefined, RunStatus>;
  outcome: RunOutcome | null;
  progress: ColumnType<string, string | undefined, string>;
  progress_percent: ColumnType<number, number | undefined, number>;
  /** What started the run; 'import' for uploaded results (migration 0015). */
  trigger: RunTrigger;
  scheduled_for: Date | null;
  engine: string | null;
  engine_version: string | null;
  /** What the engine said of this run beyond name and version (`via daemon`, a template set). */
  engine_detail: ColumnType<string | null, string | null | undefined, string | null>;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  error: string | null;
  /** The EngineErrorKind of a failed run's error; null when it did not fail or the failure was not the engine's. */
  error_kind: ColumnType<RunErrorKind | null, RunErrorKind | null | undefined, RunErrorKind | null>;
  hosts_up: Generated<number>;
  hosts_down: Generated<number>;
  findings_count: Generated<number>;
  /** What the run could not do and why, for its reader (engine warnings, deduplicated). */
  notes: ColumnType<string[], string[] | undefined, string[]>;
  /** Lifecycle counts of the run's findings (see RunFindingsTable). */
  new_findings: Generated<number>;
  still_open_findings: Generated<number>;
  fixed_findings: Generated<number>;
  regressed_findings: Generated<number>;
  /** The attack narrative (reports/report.ts `Narrative`), once written. */
  narrative: ColumnType<unknown, string | null | undefined, string | null>;
  /** When the NVD data the run matched against was synced; null without a database. */
  vulndb_synced_at: Date | null;
  /** The SHA-256 of the lease of the agent attempt that holds (or last held) the run; lease_owner is `agent:<it>` while held (migration 0021). */
  agent_lease_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** The agent holding (or that last held) the run, as it named itself, and its machine. */
  agent_id: ColumnType<string | null, string | null | undefined, string | null>;
  agent_hostname: ColumnType<string | null, string | null | undefined, string | null>;
  queued_at: CreatedAt;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface TargetsTable {
  id: Generated<number>;
  user_id: number;
  target: string;
  type: 'Domain' | 'Ip';
  description: string | null;
  status: ColumnType<'Active' | 'Inactive' | 'Unknown', 'Active' | 'Inactive' | 'Unknown' | undefined, 'Active' | 'Inactive' | 'Unknown'>;
  last_scan: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface FindingsTable {
  id: Generated<number>;
  user_id: number;
  scan_id: number;
  target_id: number | null;
  run_id: number | null;
  run_index: number;
  fingerprint: string;
  name: string;
  description: string;
  solution: string;
  threat: ThreatLevel;
  cvss_base: number | null;
  cvss_vector: string | null;
  cve: string[];
  cwe: string | null;
  hostname: string;
  host_ip: string;
  port: number | null;
  protocol: string | null;
  service: string | null;
  /** Web findings: the URL as the tool reported it (bounded); null for network findings. */
  url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Web findings: the HTTP method of the proving request. */
  method: ColumnType<string | null, string | null | undefined, string | null>;
  /** Web findings: the vulnerable input's name. */
  parameter: ColumnType<string | null, string | null | undefined, string | null>;
  /** The URL's first 400 characters lower-cased, for the `url` filter (generated by the store). */
  url_text: ColumnType<string | null, never, never>;
  scan_type: string;
  engine: string;
  rule_id: string;
  /** What the engine that reported it last saw. */
  evidence: string;
  /** Every engine that reported the finding, in the order they first did. */
  engines: ColumnType<string[], string[] | undefined, string[]>;
  /** What each engine saw, by engine name. */
  engine_evidence: ColumnType<Record<string, string>, string | undefined, string>;
  /** Each engine's QoD of the finding, by engine name (the row's `qod` is the highest). */
  engine_qod: ColumnType<Record<string, number>, string | undefined, string>;
  /** Name, host name, address and URL, lower-cased, for substring search (generated by the store). */
  search_text: ColumnType<string, never, never>;
  /** The label the latest run that judged it gave it; null until a run has. */
  lifecycle: ColumnType<Lifecycle | null, Lifecycle | null | undefined, Lifecycle | null>;
  references: string[];
  /** In the CISA KEV catalog when the finding was stored. */
  kev: Generated<boolean>;
  /** FIRST EPSS probability (0-1) when the finding was stored. */
  epss: number | null;
  /** Quality of detection, 0-100 (src/shared/finding.ts `QOD`). */
  qod: ColumnType<number, number | undefined, number>;
  status: ColumnType<'Unresolved' | 'Accepted' | 'False Positive', 'Unresolved' | 'Accepted' | 'False Positive' | undefined, 'Unresolved' | 'Accepted' | 'False Positive'>;
  first_seen_at: CreatedAt;
  last_seen_at: UpdatedAt;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * A finding's label in one run: new (first seen by the scan), still_open (seen by the previous run
 * too), fixed (seen by the previous run, not this one), regressed (fixed before, back now).
 */
export type Lifecycle = 'new' | 'still_open' | 'fixed' | 'regressed';

/** Which findings each run saw or no longer saw, with their label in that run. */
export interface RunFindingsTable {
  run_id: number;
  finding_id: number;
  lifecycle: Lifecycle;
}

/** How many findings an account has per threat and status (kept by triggers on findings). */
export interface FindingCountsTable {
  user_id: number;
  threat: ThreatLevel;
  status: 'Unresolved' | 'Accepted' | 'False Positive';
  n: number;
}

/** A report email waiting to be sent, or sent, for one run. */
export interface MailOutboxTable {
  id: Generated<number>;
  run_id: number;
  recipient: string;
  status: ColumnType<'pending' | 'sent' | 'failed', 'pending' | undefined, 'pending' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** While a worker sends it; another worker may take it over after this. */
  lease_expires_at: Date | null;
  error: string | null;
  message_id: string | null;
  created_at: CreatedAt;
  sent_at: Date | null;
}

export type WebhookEventType = 'scan.completed' | 'scan.failed' | 'ping';

/** An account's HTTPS callback for scan events. */
export interface WebhooksTable {
  id: Generated<number>;
  user_id: number;
  url: string;
  events: string[];
  description: string | null;
  is_active: Generated<boolean>;
  /** `whsec_<base64>`: the Standard Webhooks signing secret. */
  secret: string;
  service: 'generic' | 'slack' | 'discord' | 'teams';
  last_delivery_at: Date | null;
  /** The latest attempt's outcome in words, e.g. `pending (attempt 2 of 6 failed: HTTP 500)`. */
  last_status: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * One message to one webhook: the delivery record (its status is the delivery's) and its place in
 * the queue, until it is delivered or given up. Its attempts are `webhook_attempts` rows.
 */
export interface WebhookOutboxTable {
  id: Generated<number>;
  webhook_id: number;
  /** The `webhook-id` header, the same on every attempt. */
  message_id: string;
  event: WebhookEventType;
  /** The exact body sent (JSON text). */
  body: string;
  status: ColumnType<'pending' | 'succeeded' | 'failed', 'pending' | undefined, 'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  max_attempts: number;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  lease_expires_at: Date | null;
  created_at: CreatedAt;
}

/** One attempt to deliver a message: written when claimed, completed with what came back. */
export interface WebhookAttemptsTable {
  outbox_id: number;
  /** 1 for the first attempt; unique per message. */
  attempt: number;
  started_at: ColumnType<Date, Date | string | undefined, never>;
  /** Null while the attempt is in flight, or when its worker stopped before recording it. */
  finished_at: Date | null;
  response_code: number | null;
  /** The first 4 KB of the answer. */
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
}

/** A CVE synced from the NVD CVE API 2.0. */
export interface VulnDbCvesTable {
  cve: string;
  description: string;
  cvss_base: number | null;
  cvss_vector: string | null;
  /** `3.1`, `3.0` or `2.0`: which CVSS version the score is. */
  cvss_version: string | null;
  /** CWE ids, NVD's primary ones first. */
  cwe: string[];
  references: string[];
  vuln_status: string | null;
  published: Date | null;
  last_modified: Date | null;
  /** NVD's configurations as synced (src/vulndb/configurations.ts); null for rows synced before migration 0017. */
  configurations: ColumnType<unknown, string | null | undefined, string | null>;
  updated_at: UpdatedAt;
}

/** One CPE match criterion of a CVE's NVD configurations. */
export interface VulnDbCpeMatchesTable {
  id: Generated<number>;
  cve: string;
  match_criteria_id: string | null;
  /** The CPE 2.3 name as NVD wrote it (`cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*`). */
  criteria: string;
  part: string;
  vendor: string;
  product: string;
  version_start_including: string | null;
  version_start_excluding: string | null;
  version_end_including: string | null;
  version_end_excluding: string | null;
  /** False for the platform entries of "running on" configurations. */
  vulnerable: boolean;
}

/** An entry of the CISA Known Exploited Vulnerabilities catalog. */
export interface VulnDbKevTable {
  cve: string;
  vendor_project: string | null;
  product: string | null;
  vulnerability_name: string | null;
  date_added: ColumnType<Date | null, string | null, string | null>;
  due_date: ColumnType<Date | null, string | null, string | null>;
  known_ransomware_campaign_use: string | null;
}

/** A FIRST EPSS score. */
export interface VulnDbEpssTable {
  cve: string;
  epss: number;
  percentile: number | null;
  score_date: Date | null;
}

export type VulnDbSource = 'nvd' | 'kev' | 'epss';

/** When each source was last synced; for NVD, the start of the next incremental window. */
export interface VulnDbSyncTable {
  source: VulnDbSource;
  synced_at: Date;
  detail: ColumnType<unknown, string, string>;
}

/** A downloaded agent's scan-scoped credential (migration 0021): only the token's SHA-256 is stored. */
export interface AgentCredentialsTable {
  id: Generated<number>;
  scan_id: number;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** One numbered batch of an agent attempt's events, kept until the attempt completes (migration 0021). */
export interface AgentChunksTable {
  run_id: number;
  lease_hash: string;
  seq: number;
  events: ColumnType<unknown, string, string>;
  digest: string;
  created_at: CreatedAt;
}

export interface Database {
  settings: SettingsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  agent_registrations: AgentRegistrationsTable;
  web_sessions: WebSessionsTable;
  auth_throttles: AuthThrottlesTable;
  email_tokens: EmailTokensTable;
  oidc_logins: OidcLoginsTable;
  scans: ScansTable;
  runs: RunsTable;
  agent_credentials: AgentCredentialsTable;
  agent_chunks: AgentChunksTable;
  targets: TargetsTable;
  findings: FindingsTable;
  run_findings: RunFindingsTable;
  finding_counts: FindingCountsTable;
  mail_outbox: MailOutboxTable;
  webhooks: WebhooksTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_attempts: WebhookAttemptsTable;
  vulndb_cves: VulnDbCvesTable;
  vulndb_cpe_matches: VulnDbCpeMatchesTable;
  vulndb_kev: VulnDbKevTable;
  vulndb_epss: VulnDbEpssTable;
  vulndb_sync: VulnDbSyncTable;
}

export type Scan = Selectable<ScansTable>;
export type Run = Selectable<RunsTable>;
export type TargetRow = Selectable<TargetsTable>;

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type AgentRegistration = Selectable<AgentRegistrationsTable>;
export type WebSession = Selectable<WebSessionsTable>;
export type EmailToken = Selectable<EmailTokensTable>;
