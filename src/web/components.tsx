/**
 * The building blocks pages share: form fields that show their error beside them (and tie it to the
 * input for screen readers), alerts, empty states, threat badges, pagination and confirmation.
 * Every input has a visible label; every error is linked with aria-describedby.
 */
import type { ComponentChildren, SelectHTMLAttributes, TextareaHTMLAttributes, VNode } from 'preact';
import type { FieldErrors } from '../shared/errors.js';

/** The hidden field every state-changing form carries. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

interface FieldBase {
  /** The form field's name; also the key of its errors. */
  name: string;
  label: string;
  /** Errors by field name, as AppError carries them (only this field's are shown). */
  errors?: FieldErrors | undefined;
  hint?: ComponentChildren;
  required?: boolean;
  /** Defaults to `f-<name>`. */
  id?: string;
}

function describedBy(id: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function FieldMessages(props: { id: string; hint?: ComponentChildren; error?: string[] | undefined }) {
  return (
    <>
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && props.error.length > 0 && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error.join(' ')}
        </p>
      )}
    </>
  );
}

/** The input attributes pages pass through (Preact's own input type is a union too strict to spread). */
export interface InputAttributes {
  type?: string;
  value?: string | number | undefined;
  placeholder?: string;
  autocomplete?: string;
  minLength?: number;
  maxLength?: number;
  min?: string | number;
  max?: string | number;
  step?: string | number;
  pattern?: string;
  inputMode?: 'text' | 'email' | 'numeric' | 'decimal' | 'tel' | 'url' | 'search' | 'none';
  autofocus?: boolean;
  readOnly?: boolean;
  disabled?: boolean;
  accept?: string;
  multiple?: boolean;
  list?: string;
  spellcheck?: boolean;
  class?: string;
  form?: string;
  [data: `data-${string}`]: string | undefined;
}

/** What every labelled control carries: its id and name, and how it is tied to its hint and error. */
interface ControlAttributes {
  id: string;
  name: string;
  required: boolean | undefined;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
}

/** The label, the control `render` draws with the attributes given, and the hint and error below it. */
function Labelled(props: FieldBase & { render: (attributes: ControlAttributes) => VNode }) {
  const { name, label, errors, hint, required, id = `f-${props.name}` } = props;
  const error = errors?.[name];
  const attributes: ControlAttributes = { id, name, required, 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': describedBy(id, Boolean(hint), Boolean(error)) };
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>
        {label}
        {required && <span class="required"> (required)</span>}
      </label>
      {props.render(attributes)}
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/** A labelled input with its hint and error. */
export function Field(props: FieldBase & InputAttributes) {
  const { name, label, errors, hint, required, id, ...input } = props;
  return <Labelled {...{ name, label, errors, hint, required, id }} render={(attributes) => <input {...attributes} {...(input as Record<string, unknown>)} />} />;
}

/** A labelled textarea with its hint and error. */
export function TextArea(props: FieldBase & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name' | 'id' | 'label' | 'role'>) {
  const { name, label, errors, hint, required, id, ...area } = props;
  return <Labelled {...{ name, label, errors, hint, required, id }} render={(attributes) => <textarea {...attributes} {...area} />} />;
}

/** A labelled select; `options` are [value, label] pairs. */
export function Select(
  props: FieldBase & { options: readonly (readonly [string, string])[]; value?: string | undefined } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name' | 'id' | 'label' | 'value' | 'role'>,
) {
  const { name, label, errors, hint, required, options, value, id, ...select } = props;
  return (
    <Labelled
      {...{ name, label, errors, hint, required, id }}
      render={(attributes) => (
        <select {...attributes} {...select}>
          {options.map(([optionValue, optionLabel]) => (
            <option value={optionValue} selected={optionValue === value}>
              {optionLabel}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** A labelled checkbox (value "1" when ticked). */
export function Checkbox(props: FieldBase & { checked?: boolean } & Omit<InputAttributes, 'type' | 'value'>) {
  const { name, label, errors, hint, id = `f-${props.name}`, checked, ...input } = props;
  const error = errors?.[name];
  return (
    <div class={`field checkbox${error ? ' has-error' : ''}`}>
      <input type="checkbox" id={id} name={name} value="1" checked={checked} aria-describedby={describedBy(id, Boolean(hint), Boolean(error))} {...(input as Record<string, unknown>)} />
      <label for={id}>{label}</label>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/** The errors not tied to a field of the form (or all of them, in a summary at the top). */
export function ErrorSummary(props: { message?: string | undefined; errors?: FieldErrors | undefined }) {
  if (!props.message && !props.errors) return null;
  return (
    <div class="alert alert-error" role="alert" tabIndex={-1} id="error-summary">
      {props.message && <p>{props.message}</p>}
    </div>
  );
}

export function Alert(props: { kind: 'success' | 'info' | 'error' | 'warning'; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

/** What a list shows when it has nothing yet, with the next step to take. */
export function EmptyState(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children}
    </div>
  );
}

export type Threat = 'Critical' | 'High' | 'Medium' | 'Low' | 'Informational';

/** A threat level as a coloured badge (the word is always written: colour is never the only cue). */
export function ThreatBadge(props: { threat: Threat | string }) {
  return <span class={`badge threat-${props.threat.toLowerCase()}`}>{props.threat}</span>;
}

/** The heading row of a page, with its actions on the right. */
export function PageHeader(props: { title: string; children?: ComponentChildren; subtitle?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.subtitle && <p class="subtitle">{props.subtitle}</p>}
      </div>
      {props.children && <div class="actions">{props.children}</div>}
    </div>
  );
}

export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

/** Previous/next links of a paginated list, keeping the other query parameters. */
export function Pagination(props: { meta: PageMeta; path: string; query: Record<string, string | undefined> }) {
  const { meta } = props;
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(props.query)) if (value !== undefined && value !== '' && key !== 'page') params.set(key, value);
    params.set('page', String(page));
    return `${props.path}?${params.toString()}`;
  };
  return (
    <nav class="pagination" aria-label="Pages">
      <span>
        {meta.total === 0 ? 'No results' : `${meta.from}–${meta.to} of ${meta.total}`}
      </span>
      {meta.current_page > 1 ? <a href={link(meta.current_page - 1)} rel="prev">Previous</a> : <span aria-disabled="true" class="disabled">Previous</span>}
      <span>
        Page {meta.current_page} of {Math.max(1, meta.last_page)}
      </span>
      {meta.current_page < meta.last_page ? <a href={link(meta.current_page + 1)} rel="next">Next</a> : <span aria-disabled="true" class="disabled">Next</span>}
    </nav>
  );
}

/** A button that copies the text of the element `target` names (works once the script has loaded). */
export function CopyButton(props: { target: string; label?: string }) {
  return (
    <button type="button" class="secondary" data-copy={props.target}>
      {props.label ?? 'Copy'}
    </button>
  );
}

/** Date and time for people: ISO in the attribute, readable UTC in the text (the script localises it). */
export function Time(props: { value: Date | string | null | undefined; empty?: string }) {
  if (!props.value) return <span class="muted">{props.empty ?? '—'}</span>;
  const date = props.value instanceof Date ? props.value : new Date(props.value);
  if (Number.isNaN(date.getTime())) return <span>{String(props.value)}</span>;
  return <time dateTime={date.toISOString()}>{date.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>;
}
