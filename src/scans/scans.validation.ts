/**
 * The rules of scan creation and update beyond the request's shape: targets per scan type and
 * the address guard, the time zone and start date/time, the login script, and plan tiers.
 * Field errors are collected and reported together, as Laravel does.
 */
import { AppError, validationError, type FieldErrors } from '../shared/errors.js';
import { resolveAndCheck, type createAddressGuard } from '../shared/address-guard.js';
import { mayHaveNarrative, type Role } from '../accounts/roles.js';
import { decodeLoginScript } from './login-scripts.js';
import { isTimeZone, parseStartDate, parseStartTime, type LocalDate, type LocalTime } from './schedule.js';
import { hostOf, parseScanTargets, type ParsedTarget } from './targets.js';
import type { CreateScanBody, UpdateScanBody } from './scans.schema.js';

export type Guard = ReturnType<typeof createAddressGuard>;

const UNMANAGED_ROLES: Role[] = ['pro', 'admin'];

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
  if (options.unmanaged && !UNMANAGED_ROLES.includes(role)) {
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

export async function validateNewScan(
  body: CreateScanBody,
  options: { role: Role; guard: Guard; maxAddresses: number; loginScriptMaxBytes: number },
): Promise<ValidatedScan> {
  const errors: FieldErrors = {};
  const unmanaged = body.scan_frequency === 'Unmanaged';

  const parsed = parseScanTargets(body.scan_target, body.scan_type, { maxAddresses: options.maxAddresses });
  if (!parsed.ok) for (const e of parsed.errors) add(errors, 'scan_target', e);

  if (unmanaged && body.scan_type !== 'OpenVas') {
    add(errors, 'scan_frequency', 'Unmanaged (internal network) scans must be OpenVas scans.');
  }
  if (!isTimeZone(body.scan_time_zone)) {
    add(errors, 'scan_time_zone', 'The scan time zone must be an IANA time zone name, such as Europe/Berlin or America/New_York.');
  }
  let startDate: LocalDate | undefined;
  if (body.scan_start_date) {
    const date = parseStartDate(body.scan_start_date);
    if (date.ok) startDate = date.value;
    else add(errors, 'scan_start_date', date.error);
  }
  let startTime: LocalTime | undefined;
  if (body.scan_start_time) {
    const time = parseStartTime(body.scan_start_time);
    if (time.ok) startTime = time.value;
    else add(errors, 'scan_start_time', time.error);
  }

  let loginScript: string | undefined;
  if (body.scan_type !== 'ZAP' && (body.zap_authenticated || body.zap_login_script)) {
    add(errors, 'zap_authenticated', 'Authenticated scanning and login scripts are for ZAP scans only.');
  } else if (body.zap_login_script) {
    const script = decodeLoginScript(body.zap_login_script, options.loginScriptMaxBytes);
    if (script.ok) loginScript = script.text;
    else add(errors, 'zap_login_script', script.error);
  } else if (body.zap_authenticated) {
    add(errors, 'zap_login_script', 'The zap login script field is required when zap authenticated is true.');
  }

  // The address guard runs on well-formed targets only, and not for Unmanaged scans: the local
  // agent scans internal networks, the service never does.
  if (parsed.ok && !unmanaged) await guardTargets(parsed.value.targets, options.guard, errors);
  if (Object.keys(errors).length > 0) throw validationError(orderErrors(errors));
  checkTier(options.role, { unmanaged, narrative: body.include_attack_narrative ?? false });
  return { targets: parsed.ok ? parsed.value.targets : [], startDate, startTime, loginScript };
}

const FIELD_ORDER = ['scan_name', 'scan_type', 'scan_frequency', 'scan_start_date', 'scan_start_time', 'scan_time_zone', 'scan_email', 'scan_target', 'zap_authenticated', 'zap_login_script', 'include_attack_narrative'];

/** Fields in the order of the request table, as Laravel reports them. */
function orderErrors(errors: FieldErrors): FieldErrors {
  const ordered: FieldErrors = {};
  for (const field of [...FIELD_ORDER, ...Object.keys(errors)]) if (errors[field]) ordered[field] = errors[field];
  return ordered;
}

export interface ValidatedUpdate {
  loginScript: string | undefined;
}

export function validateScanUpdate(
  body: UpdateScanBody,
  scan: { scan_type: string; zap_login_script: string | null },
  options: { role: Role; loginScriptMaxBytes: number },
): ValidatedUpdate {
  const errors: FieldErrors = {};
  const touchesZap = body.zap_authenticated !== undefined || body.zap_login_script !== undefined || body.remove_login_script !== undefined;
  let loginScript: string | undefined;
  if (touchesZap && scan.scan_type !== 'ZAP') {
    add(errors, 'zap_authenticated', 'Authenticated scanning and login scripts are for ZAP scans only.');
  } else {
    if (body.remove_login_script && body.zap_login_script !== undefined) {
      add(errors, 'remove_login_script', 'Send either a new zap login script or remove_login_script, not both.');
    }
    if (body.remove_login_script && body.zap_authenticated) {
      add(errors, 'zap_authenticated', 'Authenticated scanning needs a login script; it cannot be enabled while removing the script.');
    }
    if (body.zap_login_script !== undefined) {
      const script = decodeLoginScript(body.zap_login_script, options.loginScriptMaxBytes);
      if (script.ok) loginScript = script.text;
      else add(errors, 'zap_login_script', script.error);
    } else if (body.zap_authenticated && !scan.zap_login_script && !body.remove_login_script) {
      add(errors, 'zap_login_script', 'The zap login script field is required when zap authenticated is true.');
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  checkTier(options.role, { narrative: body.include_attack_narrative ?? false });
  return { loginScript };
}
