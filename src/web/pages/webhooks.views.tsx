/**
 * The webhooks list and the webhook form (create, and the edit form of the detail page). The form
 * keeps what was typed when it comes back with errors, each beside its field.
 */
import type { FieldErrors } from '../../shared/errors.js';
import { MAX_WEBHOOKS, WEBHOOK_EVENTS, type WebhookResource } from '../../webhooks/webhooks.schema.js';
import { Checkbox, CsrfField, EmptyState, Field, PageHeader, Time } from '../components.js';
import { Layout, type PageFrame } from '../layout.js';

/** The frame every webhook page passes to Layout (the section is always 'webhooks'). */
export type Frame = Pick<PageFrame, 'user' | 'csrfToken' | 'flash'>;

/** What the webhook form holds: the text typed, kept when the form comes back with errors. */
export interface WebhookFormValues {
  url: string;
  events: string[];
  description: string;
  is_active: boolean;
}

/** The fields the form shows errors beside; any other error goes above the form. */
const FORM_FIELDS = ['url', 'events', 'description', 'is_active'];

/** What each event means, for the checkboxes' hints. */
const EVENT_HINTS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  'scan.completed': 'A run of a scan finished; the body carries its counts by threat and report links.',
  'scan.failed': 'A run failed or was cancelled; the body says why.',
};

/** The names people know the chat services by. */
export const SERVICE_NAMES: Record<WebhookResource['service'], string> = { generic: 'Generic (signed JSON)', slack: 'Slack', discord: 'Discord', teams: 'Microsoft Teams' };

/** The form's values from a stored webhook (the edit form's starting point). */
export function valuesOf(webhook: WebhookResource): WebhookFormValues {
  return { url: webhook.url, events: webhook.events, description: webhook.description ?? '', is_active: webhook.is_active };
}

/** The errors of the form not tied to one of its fields (the limit of 10 webhooks). */
export function FormProblems(props: { errors?: FieldErrors | undefined }) {
  const others = Object.entries(props.errors ?? {}).filter(([field]) => !FORM_FIELDS.includes(field) && !field.startsWith('events.'));
  if (others.length === 0) return null;
  return (
    <div class="alert alert-error" role="alert">
      {others.map(([, messages]) => (
        <p>{messages.join(' ')}</p>
      ))}
    </div>
  );
}

/** One event's checkbox: the components' Checkbox posts "1", these post the event's name. */
function EventCheckbox(props: { event: (typeof WEBHOOK_EVENTS)[number]; checked: boolean }) {
  const id = `f-events-${props.event.replace('.', '-')}`;
  return (
    <div class="field checkbox">
      <input type="checkbox" id={id} name="events" value={props.event} checked={props.checked} aria-describedby={`${id}-hint`} />
      <label for={id}>
        <code>{props.event}</code>
      </label>
      <p class="hint" id={`${id}-hint`}>
        {EVENT_HINTS[props.event]}
      </p>
    </div>
  );
}

/** URL, events and description; `withActive` adds the switch of the edit form. */
export function WebhookFields(props: { values: WebhookFormValues; errors?: FieldErrors | undefined; withActive?: boolean }) {
  const { values, errors } = props;
  const eventErrors = Object.entries(errors ?? {})
    .filter(([field]) => field === 'events' || field.startsWith('events.'))
    .flatMap(([, messages]) => messages);
  return (
    <>
      <Field
        name="url"
        label="Payload URL"
        type="url"
        required
        value={values.url}
        maxLength={2048}
        placeholder="https://example.com/rampart-events"
        autocomplete="off"
        spellcheck={false}
        errors={errors}
        hint="HTTPS only, on an address this service may reach. Slack, Discord and Microsoft Teams incoming-webhook URLs get their own message format."
      />
      <fieldset class={`field webhook-events${eventErrors.length > 0 ? ' has-error' : ''}`} aria-describedby={eventErrors.length > 0 ? 'f-events-error' : undefined}>
        <legend>Events (at least one)</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <EventCheckbox event={event} checked={values.events.includes(event)} />
        ))}
        {eventErrors.length > 0 && (
          <p class="field-error" id="f-events-error">
            {eventErrors.join(' ')}
          </p>
        )}
      </fieldset>
      <Field name="description" label="Description" value={values.description} maxLength={255} errors={errors} hint="Optional: what receives these events (up to 255 characters)." />
      {props.withActive && (
        <Checkbox name="is_active" label="Active: send events to this URL" checked={values.is_active} errors={errors} hint="Switched off, no event is sent; a test ping still is." />
      )}
    </>
  );
}

/** GET /webhooks/new, and the form again with its errors (422). */
export function NewWebhookPage(props: { frame: Frame; values: WebhookFormValues; errors?: FieldErrors | undefined }) {
  return (
    <Layout title="New webhook" {...props.frame} section="webhooks">
      <PageHeader title="New webhook" subtitle="Rampart calls this URL with a signed JSON body when a scan run completes or fails." />
      <div class="card webhook-form">
        <FormProblems errors={props.errors} />
        <form method="post" action="/webhooks/new" class="stack" novalidate>
          <CsrfField token={props.frame.csrfToken} />
          <WebhookFields values={props.values} errors={props.errors} />
          <div class="actions">
            <button type="submit">Create webhook</button>
            <a href="/webhooks">Cancel</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** A webhook's latest attempt in words, or that none was made yet. */
export function LastDelivery(props: { webhook: WebhookResource }) {
  const { webhook } = props;
  if (!webhook.last_status) return <span class="muted">No delivery yet</span>;
  const status = webhook.last_status.split(' ')[0] ?? '';
  return (
    <span class="last-delivery">
      <span class={`badge delivery-${status}`}>{status}</span> <Time value={webhook.last_delivery_at} />
      <span class="hint">{webhook.last_status}</span>
    </span>
  );
}

/** Active or paused, in words. */
export function ActiveBadge(props: { active: boolean }) {
  return props.active ? <span class="badge delivery-succeeded">Active</span> : <span class="badge delivery-paused">Paused</span>;
}

/** GET /webhooks: the account's webhooks, or how to make the first. */
export function WebhooksListPage(props: { frame: Frame; webhooks: WebhookResource[] }) {
  const { webhooks } = props;
  const full = webhooks.length >= MAX_WEBHOOKS;
  return (
    <Layout title="Webhooks" {...props.frame} section="webhooks">
      <PageHeader title="Webhooks" subtitle={`${webhooks.length} of ${MAX_WEBHOOKS} webhooks: signed HTTPS callbacks when scan runs complete or fail.`}>
        {full ? (
          <span class="muted">The limit is {MAX_WEBHOOKS}: delete one to add another.</span>
        ) : (
          <a class="button" href="/webhooks/new">
            New webhook
          </a>
        )}
      </PageHeader>
      {webhooks.length === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>Tell your own systems, Slack, Discord or Microsoft Teams when a scan completes or fails.</p>
          <a class="button" href="/webhooks/new">
            Create a webhook
          </a>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Your webhooks</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Service</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Last delivery</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((webhook) => (
                <tr>
                  <td class="webhook-url">
                    <a href={`/webhooks/${webhook.id}`}>{webhook.url}</a>
                    {webhook.description && <span class="hint">{webhook.description}</span>}
                  </td>
                  <td>{SERVICE_NAMES[webhook.service]}</td>
                  <td>
                    {webhook.events.map((event) => (
                      <code class="event">{event}</code>
                    ))}
                  </td>
                  <td>
                    <ActiveBadge active={webhook.is_active} />
                  </td>
                  <td>
                    <LastDelivery webhook={webhook} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
