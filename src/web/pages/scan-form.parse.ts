/**
 * The scan form as the pages receive it: a multipart body (the ZAP login script is a file), read
 * into the text values the form shows again on an error, the script's bytes as the API's base64,
 * and the shape checks the API's JSON Schema makes (the services assume a well-formed body), with
 * the API's own messages so a field reads the same wherever the scan was made.
 */
import type { FastifyRequest } from 'fastify';
import { AppError, type FieldErrors } from '../../shared/errors.js';
import { isEmail } from '../../shared/validation.js';
import { AGENT_FREQUENCIES, SCAN_FREQUENCIES, SCAN_TYPES, type CreateScanBody, type UpdateScanBody } from '../../scans/scans.schema.js';
import { startAsInputs } from '../../scans/schedule-preview.js';

/** Every value of the form, as typed (checkboxes as booleans). */
export interface ScanFormValues {
  scan_name: string;
  scan_type: string;
  scan_target: string;
  scan_frequency: string;
  /** Unmanaged scans: when a run awaits the local agent. */
  agent_frequency: string;
  scan_start_date: string;
  scan_start_time: string;
  scan_time_zone: string;
  scan_email: string;
  zap_authenticated: boolean;
  remove_login_script: boolean;
  include_attack_narrative: boolean;
  engine_options: string;
}

/** What the form sent: its values, the button pressed, and the login script if one was chosen. */
export interface ScanFormInput {
  values: ScanFormValues;
  /** `preview` for "Preview schedule"; anything else saves. */
  intent: string;
  /** The chosen login script, base64 as POST /api/new-scan takes it. */
  loginScript: string | undefined;
  /** Why the chosen file was refused before the service saw it (too large). */
  fileError: string | undefined;
}

const TEXT_FIELDS = ['scan_name', 'scan_type', 'scan_target', 'scan_frequency', 'agent_frequency', 'scan_start_date', 'scan_start_time', 'scan_time_zone', 'scan_email', 'engine_options'] as const;
const BOOLEAN_FIELDS = ['zap_authenticated', 'remove_login_script', 'include_attack_narrative'] as const;

/** Empty values, then the given ones: the blank form and the base of every parsed one. */
export function formValues(values: Partial<ScanFormValues> = {}): ScanFormValues {
  return {
    scan_name: '',
    scan_type: 'Rampart',
    scan_target: '',
    scan_frequency: 'One-time',
    agent_frequency: 'One-time',
    scan_start_date: '',
    scan_start_time: '',
    scan_time_zone: 'UTC',
    scan_email: '',
    zap_authenticated: false,
    remove_login_script: false,
    include_attack_narrative: false,
    engine_options: '',
    ...values,
  };
}

/** Reads the multipart form; the login script (field `zap_login_script`) is kept in memory, at most `maxScriptBytes`. */
export async function readScanForm(request: FastifyRequest, maxScriptBytes: number): Promise<ScanFormInput> {
  const values = formValues({ scan_type: '', scan_frequency: '', scan_time_zone: '' });
  let intent = 'save';
  let loginScript: string | undefined;
  let fileError: string | undefined;
  if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'The scan form is sent as multipart/form-data; reload the page and try again.');
  // A script over the limit is cut short (truncated) rather than thrown: the fields after it are still read, to be shown again.
  const options = { limits: { fileSize: maxScriptBytes, files: 1, fields: 40, fieldSize: 1_048_576 }, throwFileSizeLimit: false };
  for await (const part of request.parts(options as Parameters<FastifyRequest['parts']>[0])) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (part.fieldname !== 'zap_login_script') continue;
      // A file input left empty still sends a part, with no name and no bytes.
      if (part.file.truncated) fileError = `The zap login script must not be larger than ${maxScriptBytes} bytes.`;
      else if (part.filename !== '' || data.length > 0) loginScript = data.toString('base64');
      continue;
    }
    const value = typeof part.value === 'string' ? part.value : String(part.value ?? '');
    if (part.fieldname === 'intent') intent = value;
    else if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) values[part.fieldname as (typeof TEXT_FIELDS)[number]] = value;
    else if ((BOOLEAN_FIELDS as readonly string[]).includes(part.fieldname)) values[part.fieldname as (typeof BOOLEAN_FIELDS)[number]] = value === '1';
  }
  return { values, intent, loginScript, fileError };
}

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/**
 * The checks POST /api/new-scan and PUT /api/scans/{uuid} make by schema, with the same messages.
 * `edit`: the type is not sent (it cannot change).
 */
export function shapeErrors(values: ScanFormValues, mode: 'new' | 'edit'): FieldErrors {
  const errors: FieldErrors = {};
  const name = values.scan_name.trim();
  if (name === '') add(errors, 'scan_name', 'The scan name field is required.');
  else if (name.length > 255) add(errors, 'scan_name', 'The scan name field must not be greater than 255 characters.');
  if (mode === 'new' && !(SCAN_TYPES as readonly string[]).includes(values.scan_type)) add(errors, 'scan_type', `The selected scan type is invalid. Valid: ${SCAN_TYPES.join(', ')}.`);
  if (!(SCAN_FREQUENCIES as readonly string[]).includes(values.scan_frequency)) add(errors, 'scan_frequency', `The selected scan frequency is invalid. Valid: ${SCAN_FREQUENCIES.join(', ')}.`);
  if (values.scan_frequency === 'Unmanaged' && !(AGENT_FREQUENCIES as readonly string[]).includes(values.agent_frequency)) {
    add(errors, 'agent_frequency', `The selected agent frequency is invalid. Valid: ${AGENT_FREQUENCIES.join(', ')}.`);
  }
  if (values.scan_start_date.length > 25) add(errors, 'scan_start_date', 'The scan start date field must not be greater than 25 characters.');
  if (values.scan_start_time.length > 10) add(errors, 'scan_start_time', 'The scan start time field must not be greater than 10 characters.');
  if (values.scan_time_zone.trim() === '') add(errors, 'scan_time_zone', 'The scan time zone field is required.');
  const email = values.scan_email.trim();
  if (email === '') add(errors, 'scan_email', 'The scan email field is required.');
  else if (email.length > 100) add(errors, 'scan_email', 'The scan email field must not be greater than 100 characters.');
  else if (!isEmail(email)) add(errors, 'scan_email', 'The scan email field must be a valid email address.');
  if (values.scan_target.trim() === '') add(errors, 'scan_target', 'The scan target field is required.');
  if (engineOptions(values.engine_options) === null) add(errors, 'engine_options', 'The engine options field must be a JSON object, such as {"ports": "default"}.');
  return errors;
}

/** The engine options typed as JSON: undefined when empty, null when not an object. */
function engineOptions(text: string): Record<string, unknown> | undefined | null {
  if (text.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The body of POST /api/new-scan the form stands for (call after shapeErrors found nothing for the shape it relies on). */
export function toCreateBody(values: ScanFormValues, loginScript: string | undefined): CreateScanBody {
  const options = engineOptions(values.engine_options);
  return {
    scan_name: values.scan_name,
    scan_type: (SCAN_TYPES as readonly string[]).includes(values.scan_type) ? (values.scan_type as CreateScanBody['scan_type']) : 'Rampart',
    scan_frequency: (SCAN_FREQUENCIES as readonly string[]).includes(values.scan_frequency) ? (values.scan_frequency as CreateScanBody['scan_frequency']) : 'One-time',
    ...(values.scan_frequency === 'Unmanaged' ? { agent_frequency: values.agent_frequency as NonNullable<CreateScanBody['agent_frequency']> } : {}),
    scan_start_date: values.scan_start_date.trim() || null,
    scan_start_time: values.scan_start_time.trim() || null,
    scan_time_zone: values.scan_time_zone.trim(),
    scan_email: values.scan_email.trim(),
    scan_target: values.scan_target,
    zap_authenticated: values.zap_authenticated,
    zap_login_script: loginScript ?? null,
    include_attack_narrative: values.include_attack_narrative,
    ...(options ? { engine_options: options } : {}),
  };
}

/** The stored scan's values in the form (the edit page's starting point). */
export function valuesOfScan(scan: {
  scan_name: string;
  scan_type: string;
  scan_target: string;
  scan_frequency: string;
  agent_frequency: string | null;
  scan_start_date: string | null;
  scan_start_time: string | null;
  scan_time_zone: string;
  scan_email: string;
  zap_authenticated: boolean;
  include_attack_narrative: boolean;
  engine_options: Record<string, unknown>;
}): ScanFormValues {
  return formValues({
    scan_name: scan.scan_name,
    scan_type: scan.scan_type,
    scan_target: scan.scan_target,
    scan_frequency: scan.scan_frequency,
    agent_frequency: scan.agent_frequency ?? 'One-time',
    // As the date and time inputs show them (a scan made through the API may say "Dec 1, 2026", "9:30 PM").
    scan_start_date: startAsInputs(scan.scan_start_date, scan.scan_start_time).date,
    scan_start_time: startAsInputs(scan.scan_start_date, scan.scan_start_time).time,
    scan_time_zone: scan.scan_time_zone,
    scan_email: scan.scan_email,
    zap_authenticated: scan.zap_authenticated,
    include_attack_narrative: scan.include_attack_narrative,
    engine_options: Object.keys(scan.engine_options).length > 0 ? JSON.stringify(scan.engine_options) : '',
  });
}

/**
 * The body of PUT /api/scans/{uuid}: only the fields that differ from the stored scan, so an
 * unchanged schedule is not recomputed and unchanged targets are not looked up again.
 */
export function toUpdateBody(values: ScanFormValues, stored: ScanFormValues, loginScript: string | undefined): UpdateScanBody {
  const body: UpdateScanBody = {};
  if (values.scan_name !== stored.scan_name) body.scan_name = values.scan_name;
  if (values.scan_target.trim() !== stored.scan_target.trim()) body.scan_target = values.scan_target;
  if (values.scan_email.trim() !== stored.scan_email) body.scan_email = values.scan_email.trim();
  if (values.include_attack_narrative !== stored.include_attack_narrative) body.include_attack_narrative = values.include_attack_narrative;
  const scheduleChanged = (['scan_frequency', 'scan_start_date', 'scan_start_time', 'scan_time_zone'] as const).some((field) => values[field].trim() !== stored[field]);
  if (scheduleChanged) {
    body.scan_frequency = values.scan_frequency as NonNullable<UpdateScanBody['scan_frequency']>;
    body.scan_start_date = values.scan_start_date.trim() || null;
    body.scan_start_time = values.scan_start_time.trim() || null;
    body.scan_time_zone = values.scan_time_zone.trim();
  }
  if (stored.scan_frequency === 'Unmanaged' && values.agent_frequency !== stored.agent_frequency) {
    body.agent_frequency = values.agent_frequency as NonNullable<UpdateScanBody['agent_frequency']>;
  }
  if (values.remove_login_script) body.remove_login_script = true;
  else {
    if (loginScript !== undefined) body.zap_login_script = loginScript;
    if (values.zap_authenticated !== stored.zap_authenticated) body.zap_authenticated = values.zap_authenticated;
  }
  if (values.engine_options.trim() !== stored.engine_options) body.engine_options = engineOptions(values.engine_options) ?? {};
  return body;
}
