/**
 * The rules of scan creation and update beyond the request's shape: targets per scan type and
 * the address guard, the time zone and start date/time, the login script, and plan tiers.
 * Field errors are collected and reported together, as Laravel does.
 */
import { AppError, validationError, type FieldErrors } from '../shared/errors.js';
import { unknownFields } from '../shared/validation.js';
import { resolveAndCheck, type createAddressGuard } from '../shared/address-guard.js';
import { mayHaveNarrative, mayScanUnmanaged, type Role } from '../shared/roles.js';
import { decodeLoginScript } from './login-scripts.js';
import { isTimeZone, parseStartDate, parseStartTime, type LocalDate, type LocalTime } from './schedule.js';
import { hostOf, parseScanTargets, type ParsedTarget, type ScanType } from './targets.js';
import type { Scan } from '../db/schema.js';
import { UPDATABLE_SCAN_FIELDS, type CreateScanBody, type UpdateScanBody } from './scans.schema.js';
import type { EngineRegistry } from '../engines/registry.js';
import { checkEngineChoice } from './engine-choice.js';

export type Guard = ReturnType<typeof createAddressGuard>;


export interface ValidatedScan {
  targets: ParsedTarget[];
  startDate: LocalDate | undefined;
  startTime: LocalTime | undefined;
  loginScript: string | undefined;
}

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Plan rules: 403 naming the plan needed (DESIGN.md). */
export function checkTier(role: Role, options: { unmanaged?: boolean; narrative?: boolean }): void {
  if (options.unmanaged && !mayScanUnmanaged(role)) {
    throw new AppError('forbidden', 'Internal network (Unmanaged) scans require the pro or admin plan.');
  }
  if (options.narrative && !mayHaveNarrative(role)) {
    throw new AppError('forbidden', 'Attack narratives require the premium, pro or admin plan.');
  }
}

/** Refusals listed one by one in a 422; the rest are counted in one closing line. */
const MAX_REFUSALS_LISTED = 20;

/**
 * Refusal messages for targets the service may not reach (DESIGN.md "Safety of scanning"), at most
 * MAX_REFUSALS_LISTED of them and a count of the rest: a pasted list of 65,536 private addresses
 * would otherwise be answered with a 13 MB body. Addresses and ranges are judged on the spot; host
 * names cost a DNS lookup each, so they are looked up only while the list still has room.
 */
async function guardTargets(targets: ParsedTarget[], guard: Guard, errors: FieldErrors): Promise<void> {
  const listed: string[] = [];
  let unlisted = 0;
  const note = (message: string) => (listed.length < MAX_REFUSALS_LISTED ? listed.push(message) : unlisted++);
  const refuse = (item: string, what: string) =>
    note(`The target ${item} ${what}; managed scans cannot reach it. Scan internal networks with an Unmanaged scan and the local agent, or have the administrator allow it (RAMPART_ALLOW_TARGETS).`);
  const hostnames: { host: string; item: string }[] = [];
  for (const target of targets) {
    const host = hostOf(target);
    if (target.kind === 'cidr') {
      const verdict = guard.checkRange(target.value);
      if (!verdict.allowed) refuse(target.value, `includes ${verdict.class} addresses`);
    } else if (target.kind === 'ip' || /^[0-9.]+$|:/.test(host)) {
      const verdict = guard.check(host);
      if (!verdict.allowed) refuse(target.value, `is a ${verdict.class} address`);
    } else {
      hostnames.push({ host, item: target.value });
    }
  }
  const unchecked = listed.length < MAX_REFUSALS_LISTED ? 0 : hostnames.length;
  if (unchecked === 0) {
    await Promise.all(
      hostnames.map(async ({ host, item }) => {
        const resolved = await resolveAndCheck(host, guard);
        if (!resolved.ok && resolved.reason === 'unresolvable') note(resolved.message);
        else if (!resolved.ok) refuse(item, `resolves to a non-public address (${resolved.message})`);
      }),
    );
  }
  const more = unlisted > 0 ? [`... and ${unlisted.toLocaleString('en-US')} more refused target${unlisted === 1 ? '' : 's'}.`] : [];
  if (unchecked > 0) more.push(`${unchecked.toLocaleString('en-US')} host name${unchecked === 1 ? ' was' : 's were'} not looked up.`);
  if (more.length > 0) listed.push(more.join(' '));
  for (const message of listed) add(errors, 'scan_target', message);
}

/** The targets of `text` for a scan of `scanType`, parse errors and guard refusals added to `errors`. */
async function checkTargets(
  text: string,
  scanType: ScanType,
  unmanaged: boolean,
  options: { guard: Guard; maxAddresses: number },
  errors: FieldErrors,
): Promise<ParsedTarget[]> {
  const parsed = parseScanTargets(text, scanType, { maxAddresses: options.maxAddresses });
  if (!parsed.ok) {
    for (const e of parsed.errors) add(errors, 'scan_target', e);
    return [];
  }
  // The address guard runs on well-formed targets only, and not for Unmanaged scans: the local
  // agent scans internal networks, the service never does.
  if (!unmanaged) await guardTargets(parsed.value.targets, options.guard, errors);
  return parsed.value.targets;
}

/** `agent_frequency` schedules an Unmanaged scan's agent runs: it means nothing for a scan the service runs. */
function checkAgentFrequency(value: string | undefined, unmanaged: boolean, errors: FieldErrors): void {
  if (value !== undefined && !unmanaged) {
    add(errors, 'agent_frequency', 'The agent frequency is for Unmanaged scans only (when a run awaits your local agent); this scan follows its scan frequency.');
  }
}

const ZONE_ERROR = 'The scan time zone must be an IANA time zone name, such as Europe/Berlin or America/New_York.';

/** The start date and time parsed (absent or empty: undefined), errors added to `errors`. */
function checkStart(date: string | null | undefined, time: string | null | undefined, errors: FieldErrors): { startDate: LocalDate | undefined; startTime: LocalTime | undefined } {
  let startDate: LocalDate | undefined;
  if (date) {
    const parsed = parseStartDate(date);
    if (parsed.ok) startDate = parsed.value;
    else add(errors, 'scan_start_date', parsed.error);
  }
  let startTime: LocalTime | undefined;
  if (time) {
    const parsed = parseStartTime(time);
    if (parsed.ok) startTime = parsed.value;
    else add(errors, 'scan_start_time', parsed.error);
  }
  return { startDate, startTime };
}

export async function validateNewScan(
  body: CreateScanBody,
  options: { role: Role; guard: Guard; maxAddresses: number; loginScriptMaxBytes: number; engines: EngineRegistry },
): Promise<ValidatedScan> {
  const errors: FieldErrors = {};
  const unmanaged = body.scan_frequency === 'Unmanaged';
  // A type this deployment cannot run is refused now, never accepted and failed on every run.
  checkEngineChoice(options.engines, body.scan_type, body.engine_options, !unmanaged, errors);

  checkAgentFrequency(body.agent_frequency, unmanaged, errors);
  if (unmanaged && body.scan_type !== 'OpenVas') {
    add(errors, 'scan_frequency', 'Unmanaged (internal network) scans must be OpenVas scans.');
  }
  if (!isTimeZone(body.scan_time_zone)) add(errors, 'scan_time_zone', ZONE_ERROR);
  const { startDate, startTime } = checkStart(body.scan_start_date, body.scan_start_time, errors);

  let loginScript: string | undefined;
  if (body.scan_type !== 'ZAP' && (body.zap_authenticated || body.zap_login_script)) {
    add(errors, 'zap_authenticated', 'Authenticated scanning and login scripts are for ZAP scans only.');
  } else if (body.zap_login_script) {
    const script = decodeLoginScript(body.zap_login_script, options.loginScriptMaxBytes);
    if (script.ok) loginScript = script.text;
    else add(errors, 'zap_login_script', script.error);
    if (body.zap_authenticated) checkLoginSupport(options.engines, errors);
  } else if (body.zap_authenticated) {
    add(errors, 'zap_login_script', 'The zap login script field is required when zap authenticated is true.');
  }

  const targets = await checkTargets(body.scan_target, body.scan_type, unmanaged, options, errors);
  if (Object.keys(errors).length > 0) throw validationError(orderErrors(errors));
  checkTier(options.role, { unmanaged, narrative: body.include_attack_narrative ?? false });
  return { targets, startDate, startTime, loginScript };
}

/**
 * An authenticated scan this deployment cannot log in for (no Chromium, no Selenium) is refused
 * now, with what is missing, never accepted and failed on every run.
 */
function checkLoginSupport(engines: EngineRegistry, errors: FieldErrors): void {
  const choice = engines.forScanType('ZAP');
  const support = choice.available ? choice.loginScripts?.() : undefined;
  if (support && !support.ok) add(errors, 'zap_authenticated', support.reason);
}

const FIELD_ORDER = ['scan_name', 'scan_type', 'scan_frequency', 'agent_frequency', 'scan_start_date', 'scan_start_time', 'scan_time_zone', 'scan_email', 'scan_target', 'zap_authenticated', 'zap_login_script', 'remove_login_script', 'include_attack_narrative', 'engine_options'];

/** Fields in the order of the request table, as Laravel reports them. */
function orderErrors(errors: FieldErrors): FieldErrors {
  const ordered: FieldErrors = {};
  for (const field of [...FIELD_ORDER, ...Object.keys(errors)]) if (errors[field]) ordered[field] = errors[field];
  return ordered;
}

export interface ValidatedUpdate {
  loginScript: string | undefined;
  /** The new targets, when `scan_target` was sent. */
  targets: ParsedTarget[] | undefined;
  /** The scan's start after the update (the stored one where the request leaves it). */
  startDate: LocalDate | undefined;
  startTime: LocalTime | undefined;
}

type StoredScan = Pick<Scan, 'scan_type' | 'scan_frequency' | 'zap_login_script' | 'scan_start_date' | 'scan_start_time'>;

/** Fields of the Scan resource that no update changes (a client may send back what it read). */
const READ_ONLY = new Set(['id', 'uuid', 'user_id', 'next_run_at', 'current_progress', 'created_at', 'updated_at']);

/** 422s for fields an update cannot apply: never a success for a change not made. */
function checkUnknownFields(body: Record<string, unknown>, scan: StoredScan, errors: FieldErrors): void {
  for (const field of unknownFields(body, UPDATABLE_SCAN_FIELDS)) {
    if (field === 'scan_type') {
      if (body.scan_type !== scan.scan_type) add(errors, field, 'The scan type of a scan cannot be changed; create a new scan of the other type.');
    } else if (READ_ONLY.has(field)) add(errors, field, `The ${field.replace(/_/g, ' ')} field cannot be changed.`);
    else add(errors, field, `The ${field} field is not allowed.`);
  }
}

function checkLoginScript(body: UpdateScanBody, scan: StoredScan, options: { loginScriptMaxBytes: number; engines: EngineRegistry }, errors: FieldErrors): string | undefined {
  const touchesZap = body.zap_authenticated !== undefined || body.zap_login_script !== undefined || body.remove_login_script !== undefined;
  if (touchesZap && scan.scan_type !== 'ZAP') {
    add(errors, 'zap_authenticated', 'Authenticated scanning and login scripts are for ZAP scans only.');
    return undefined;
  }
  if (body.remove_login_script && body.zap_login_script !== undefined) {
    add(errors, 'remove_login_script', 'Send either a new zap login script or remove_login_script, not both.');
  }
  if (body.remove_login_script && body.zap_authenticated) {
    add(errors, 'zap_authenticated', 'Authenticated scanning needs a login script; it cannot be enabled while removing the script.');
  }
  // A new script alone turns authentication on (scans.service.ts): the deployment must be able to replay it.
  if (!body.remove_login_script && (body.zap_authenticated ?? body.zap_login_script !== undefined)) checkLoginSupport(options.engines, errors);
  if (body.zap_login_script !== undefined) {
    const script = decodeLoginScript(body.zap_login_script, options.loginScriptMaxBytes);
    if (script.ok) return script.text;
    add(errors, 'zap_login_script', script.error);
  } else if (body.zap_authenticated && !scan.zap_login_script && !body.remove_login_script) {
    add(errors, 'zap_login_script', 'The zap login script field is required when zap authenticated is true.');
  }
  return undefined;
}

/**
 * The rules of an update: each field sent is checked as at creation; a scan keeps its type and
 * stays Unmanaged or managed (the agent's script and the service's runs are different things);
 * any field that is not a scan update's is refused by name.
 */
export async function validateScanUpdate(
  body: UpdateScanBody,
  scan: StoredScan,
  options: { role: Role; guard: Guard; maxAddresses: number; loginScriptMaxBytes: number; engines: EngineRegistry },
): Promise<ValidatedUpdate> {
  const errors: FieldErrors = {};
  checkUnknownFields(body as Record<string, unknown>, scan, errors);
  const unmanaged = scan.scan_frequency === 'Unmanaged';
  // New options are checked against the engine serving the type now; the type itself is not re-judged.
  if (body.engine_options !== undefined) {
    const optionErrors: FieldErrors = {};
    checkEngineChoice(options.engines, scan.scan_type, body.engine_options, !unmanaged, optionErrors);
    if (optionErrors.scan_type) optionErrors.engine_options = [...(optionErrors.engine_options ?? []), ...optionErrors.scan_type];
    delete optionErrors.scan_type;
    Object.assign(errors, optionErrors);
  }
  if (body.scan_frequency !== undefined && (body.scan_frequency === 'Unmanaged') !== unmanaged) {
    add(errors, 'scan_frequency', unmanaged
      ? 'An Unmanaged scan cannot be given a schedule: it is run by your local agent. Create a new scan instead.'
      : 'A scan cannot become Unmanaged: internal networks are scanned by your local agent. Create a new Unmanaged scan instead.');
  }
  checkAgentFrequency(body.agent_frequency, unmanaged, errors);
  if (body.scan_time_zone !== undefined && !isTimeZone(body.scan_time_zone)) add(errors, 'scan_time_zone', ZONE_ERROR);
  // A field sent replaces the stored one (null or empty removes it); one not sent is kept.
  const start = checkStart(
    body.scan_start_date !== undefined ? body.scan_start_date : scan.scan_start_date,
    body.scan_start_time !== undefined ? body.scan_start_time : scan.scan_start_time,
    errors,
  );
  const loginScript = checkLoginScript(body, scan, options, errors);
  const targets = body.scan_target === undefined ? undefined : await checkTargets(body.scan_target, scan.scan_type, unmanaged, options, errors);
  if (Object.keys(errors).length > 0) throw validationError(orderErrors(errors));
  checkTier(options.role, { narrative: body.include_attack_narrative ?? false });
  return { loginScript, targets, ...start };
}
