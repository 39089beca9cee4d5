/**
 * The scan form, for a new scan and for editing one: every field of POST /api/new-scan (the edit
 * form: those PUT accepts), the types this deployment cannot run shown disabled with the reason,
 * plan-restricted options disabled with the plan they need, target help for each type, and the
 * schedule preview. A multipart form (the login script is a file), so its CSRF token rides in the
 * action URL. `novalidate`: the service's messages are the ones shown, the same as the API's.
 */
import type { User } from '../../db/schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { AGENT_FREQUENCIES, SCAN_FREQUENCIES, SCAN_TYPES } from '../../scans/scans.schema.js';
import type { SchedulePreview } from '../../scans/schedule-preview.js';
import { Checkbox, ErrorSummary, Field, PageHeader, Select, TextArea } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import type { ScanFormValues } from './scan-form.parse.js';

/** Whether this deployment can run a scan type, and why not. */
export interface TypeChoice {
  type: string;
  available: boolean;
  reason?: string | undefined;
}

/** Who may use the plan-restricted options, and the sentence shown to those who may not. */
export interface PlanLimits {
  narrative: string | undefined;
  unmanaged: string | undefined;
}

export interface ScanFormProps {
  mode: 'new' | 'edit';
  user: User;
  csrfToken: string;
  flash?: Flash | null;
  action: string;
  values: ScanFormValues;
  errors?: FieldErrors | undefined;
  message?: string | undefined;
  /** A file was chosen but the form came back: browsers never keep it. */
  fileDropped?: boolean;
  types: TypeChoice[];
  zones: string[];
  limits: PlanLimits;
  preview?: SchedulePreview | undefined;
  /** Edit: whether the scan has a stored login script. */
  storedScript?: boolean;
  /** Edit: the scan's uuid, for the cancel link. */
  uuid?: string;
  /** The blank new form: the script may put the reader's own zone in. */
  freshForm?: boolean;
}

const TYPE_DESCRIPTIONS: Record<string, string> = {
  Rampart: "Rampart's network scanner: ports, services, TLS, HTTP checks and known CVEs.",
  OpenVas: 'Greenbone OpenVAS network vulnerability tests (or the Rampart scanner where OpenVAS is not configured, said in every report).',
  ZAP: 'Web application scan (DAST): crawls the site and tests for XSS, SQL injection and more.',
  Nuclei: 'Nuclei templates against the services found on the targets.',
};

/** The target help of each kind of scan; the script shows only the selected type's. */
const TARGET_HELP: { types: string; text: string }[] = [
  { types: 'Rampart OpenVas', text: 'Rampart and OpenVAS: host names, IP addresses or CIDR ranges (e.g. example.com, 203.0.113.5, 198.51.100.0/28), no ports or URLs.' },
  { types: 'Nuclei', text: 'Nuclei: host names, IP addresses or CIDR ranges, host:port services, or full http(s) URLs.' },
  { types: 'ZAP', text: 'ZAP: full http(s) URLs, e.g. https://app.example.com/.' },
];

export function ScanFormPage(props: ScanFormProps) {
  const { values, errors, mode } = props;
  const title = mode === 'new' ? 'New scan' : `Edit ${values.scan_name || 'scan'}`;
  const formErrors = errors && Object.keys(errors).length > 0;
  return (
    <Layout title={title} user={props.user} csrfToken={props.csrfToken} section="scans" flash={props.flash ?? null}>
      <PageHeader title={title} subtitle={mode === 'new' ? 'What to scan, how, and when.' : 'Changes apply from the next run.'} />
      {(props.message || formErrors) && <ErrorSummary message={props.message ?? 'The scan was not saved: correct the fields marked below.'} errors={errors} />}
      <form method="post" action={`${props.action}?_csrf=${encodeURIComponent(props.csrfToken)}`} enctype="multipart/form-data" class="stack card scan-form" noValidate data-scan-form="">
        <Field name="scan_name" label="Name" required maxLength={255} value={values.scan_name} errors={errors} />
        {mode === 'new' ? <TypeField values={values} errors={errors} types={props.types} /> : <p>Type: <strong>{values.scan_type}</strong> (a scan keeps its type; create a new scan for another).</p>}
        <TextArea
          name="scan_target"
          label="Targets"
          required
          rows={4}
          value={values.scan_target}
          errors={errors}
          hint={
            <>
              Separate targets with commas, spaces or new lines.{' '}
              {TARGET_HELP.map((help) => (
                <span class="target-help" data-target-help={help.types}>
                  {help.text}{' '}
                </span>
              ))}
            </>
          }
        />
        <ScheduleFields {...props} />
        <Field name="scan_email" label="Report email" type="email" required maxLength={100} autocomplete="email" value={values.scan_email} errors={errors} hint="The report of each run is mailed here." />
        {(mode === 'new' || values.scan_type === 'ZAP') && <ZapFields {...props} />}
        <Checkbox
          name="include_attack_narrative"
          label="Attack narrative in the report"
          checked={values.include_attack_narrative && !props.limits.narrative}
          disabled={Boolean(props.limits.narrative)}
          errors={errors}
          hint={props.limits.narrative ?? 'How an attacker could chain the findings, and the fixes in order.'}
        />
        <details class="advanced" open={Boolean(errors?.engine_options) || values.engine_options !== ''}>
          <summary>Engine options (advanced)</summary>
          <TextArea
            name="engine_options"
            label="Engine options (JSON)"
            rows={3}
            value={values.engine_options}
            errors={errors}
            hint='Options of the engine serving the type, e.g. {"ports": "default", "rate_per_second": 100}. Leave empty for the defaults.'
          />
        </details>
        <div class="actions">
          <button type="submit" name="intent" value="save">
            {mode === 'new' ? 'Create scan' : 'Save changes'}
          </button>
          <a class="button secondary" href={mode === 'new' ? '/scans' : `/scans/${props.uuid ?? ''}`}>
            Cancel
          </a>
        </div>
      </form>
    </Layout>
  );
}

function TypeField(props: { values: ScanFormValues; errors: FieldErrors | undefined; types: TypeChoice[] }) {
  const error = props.errors?.scan_type;
  return (
    <fieldset class={`field scan-types${error ? ' has-error' : ''}`} aria-describedby={error ? 'f-scan_type-error' : undefined}>
      <legend>Scan type</legend>
      {props.types.map((choice) => {
        const id = `f-scan_type-${choice.type}`;
        return (
          <div class="type-choice">
            <input type="radio" id={id} name="scan_type" value={choice.type} checked={props.values.scan_type === choice.type} disabled={!choice.available} aria-describedby={`${id}-hint`} />
            <label for={id}>{choice.type}</label>
            <p class="hint" id={`${id}-hint`}>
              {choice.available ? TYPE_DESCRIPTIONS[choice.type] : `Not available on this deployment: ${choice.reason ?? 'no engine serves it'}`}
            </p>
          </div>
        );
      })}
      {error && (
        <p class="field-error" id="f-scan_type-error">
          {error.join(' ')}
        </p>
      )}
    </fieldset>
  );
}

function ScheduleFields(props: ScanFormProps) {
  const { values, errors } = props;
  const frequencyError = errors?.scan_frequency;
  const zoneError = errors?.scan_time_zone;
  const unmanagedStored = props.mode === 'edit' && values.scan_frequency === 'Unmanaged';
  const frequencies = SCAN_FREQUENCIES.filter((f) => props.mode === 'new' || unmanagedStored === (f === 'Unmanaged'));
  return (
    <fieldset class="schedule">
      <legend>Schedule</legend>
      <div class={`field${frequencyError ? ' has-error' : ''}`}>
        <label for="f-scan_frequency">Frequency</label>
        <select id="f-scan_frequency" name="scan_frequency" aria-invalid={frequencyError ? 'true' : undefined} aria-describedby={`f-scan_frequency-hint${frequencyError ? ' f-scan_frequency-error' : ''}`}>
          {frequencies.map((f) => (
            <option value={f} selected={values.scan_frequency === f} disabled={f === 'Unmanaged' && Boolean(props.limits.unmanaged)}>
              {f === 'Unmanaged' ? 'Unmanaged (internal network, your local agent)' : f}
            </option>
          ))}
        </select>
        <p class="hint" id="f-scan_frequency-hint">
          {props.mode === 'edit'
            ? 'A scan cannot change between Unmanaged and a schedule.'
            : (props.limits.unmanaged ?? 'Unmanaged: an OpenVas scan run by your local agent inside your network (or whose results you upload).')}
        </p>
        {frequencyError && (
          <p class="field-error" id="f-scan_frequency-error">
            {frequencyError.join(' ')}
          </p>
        )}
      </div>
      {(props.mode === 'new' || unmanagedStored) && (
        <Select
          name="agent_frequency"
          label="Agent runs (Unmanaged scans)"
          options={AGENT_FREQUENCIES.map((f) => [f, f] as const)}
          value={values.agent_frequency}
          errors={errors}
          hint="When a run awaits your local agent: One-time, or at each occurrence of the start below (run the agent with --daemon). A run no agent took before the next is due is marked missed; one an agent has held for a whole period is stopped."
        />
      )}
      <div class="row">
        <Field name="scan_start_date" label="Start date" type="date" value={values.scan_start_date} errors={errors} hint="Empty: today." />
        <Field name="scan_start_time" label="Start time" type="time" value={values.scan_start_time} errors={errors} hint="Empty (with no date): now." />
        <div class={`field${zoneError ? ' has-error' : ''}`}>
          <label for="f-scan_time_zone">Time zone</label>
          <select
            id="f-scan_time_zone"
            name="scan_time_zone"
            aria-invalid={zoneError ? 'true' : undefined}
            aria-describedby={zoneError ? 'f-scan_time_zone-error' : undefined}
            data-browser-zone={props.freshForm ? '' : undefined}
          >
            {props.zones.map((zone) => (
              <option value={zone} selected={values.scan_time_zone === zone}>
                {zone}
              </option>
            ))}
          </select>
          {zoneError && (
            <p class="field-error" id="f-scan_time_zone-error">
              {zoneError.join(' ')}
            </p>
          )}
        </div>
      </div>
      {props.mode === 'new' && (
        <div class="actions">
          <button type="submit" name="intent" value="preview" class="secondary" data-preview-schedule="">
            Preview schedule
          </button>
        </div>
      )}
      <SchedulePreviewView preview={props.preview} frequency={values.scan_frequency} />
    </fieldset>
  );
}

/**
 * The next runs a schedule gives, in the scan's own zone (not a localised <time>: the point is the
 * wall-clock time where the scan runs); the element the script refreshes in place.
 */
export function SchedulePreviewView(props: { preview: SchedulePreview | undefined; frequency: string }) {
  const { preview } = props;
  return (
    <div id="schedule-preview" class="schedule-preview" aria-live="polite">
      {preview && (
        <>
          <h3>Next runs</h3>
          {props.frequency === 'Unmanaged' ? (
            <p>Unmanaged scans have no schedule: they run when you upload results.</p>
          ) : (
            <ol>
              {preview.runsNow && <li>As soon as the scan is created</li>}
              {preview.upcoming.map((run) => (
                <li>
                  <span title={`${run.at} (UTC)`}>{run.local}</span>
                </li>
              ))}
            </ol>
          )}
          {!preview.runsNow && preview.upcoming.length === 0 && props.frequency !== 'Unmanaged' && <p>No run: the start has passed.</p>}
        </>
      )}
    </div>
  );
}

function ZapFields(props: ScanFormProps) {
  const { values, errors } = props;
  const fileError = errors?.zap_login_script;
  const hintId = 'f-zap_login_script-hint';
  return (
    <fieldset class="zap-auth" data-zap-only="">
      <legend>Authenticated scan (ZAP only)</legend>
      <Checkbox name="zap_authenticated" label="Log in before scanning" checked={values.zap_authenticated} errors={errors} hint="ZAP runs your login script first and scans as the logged-in user." />
      <div class={`field${fileError ? ' has-error' : ''}`}>
        <label for="f-zap_login_script">Login script{props.storedScript ? ' (replaces the stored one)' : ''}</label>
        <input
          type="file"
          id="f-zap_login_script"
          name="zap_login_script"
          accept=".py,text/x-python,text/plain"
          aria-invalid={fileError ? 'true' : undefined}
          aria-describedby={`${hintId}${fileError ? ' f-zap_login_script-error' : ''}`}
        />
        <p class="hint" id={hintId}>
          {props.fileDropped ? 'The file you chose was not kept: choose it again. ' : ''}
          A Python (Selenium) script that logs in; at most the deployment's size limit.
        </p>
        {fileError && (
          <p class="field-error" id="f-zap_login_script-error">
            {fileError.join(' ')}
          </p>
        )}
      </div>
      {props.storedScript && <Checkbox name="remove_login_script" label="Remove the stored login script" checked={values.remove_login_script} errors={errors} />}
    </fieldset>
  );
}

/** The scan types in the contract's order, as this deployment's registry judges them. */
export function typeChoices(forType: (type: (typeof SCAN_TYPES)[number]) => { available: boolean; reason?: string }): TypeChoice[] {
  return SCAN_TYPES.map((type) => {
    const choice = forType(type);
    return { type, available: choice.available, reason: choice.available ? undefined : choice.reason };
  });
}
