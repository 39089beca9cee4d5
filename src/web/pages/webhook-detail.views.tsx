/**
 * A webhook's page: its fields, the edit form, the secret's rotation, a test ping, and the
 * delivery history (the 50 most recent, each opening onto the payload sent and the answer), which
 * refreshes itself while a delivery is pending. Also the page that confirms a deletion.
 */
import type { FieldErrors } from '../../shared/errors.js';
import { MAX_DELIVERIES_SHOWN, type DeliveryResource, type WebhookResource } from '../../webhooks/webhooks.schema.js';
import { CsrfField, EmptyState, PageHeader, Time } from '../components.js';
import { Layout } from '../layout.js';
import { ActiveBadge, FormProblems, LastDelivery, SERVICE_NAMES, WebhookFields, type Frame, type WebhookFormValues } from './webhooks.views.js';

/** How often the history refreshes while a delivery is pending (ms). */
const LIVE_EVERY_MS = 2000;

/** A status as a badge: the word is always written (colour is never the only cue). */
function DeliveryStatus(props: { status: string }) {
  return <span class={`badge delivery-${props.status}`}>{props.status.replace('_', ' ')}</span>;
}

/** The answer in a few words: the HTTP status, or why there was none. */
function answerOf(delivery: DeliveryResource): string {
  if (delivery.response_code !== null) return `HTTP ${delivery.response_code}`;
  if (delivery.error) return delivery.error;
  return delivery.attempts.some((a) => a.status === 'in_flight') ? 'sending…' : 'not sent yet';
}

function Delivery(props: { delivery: DeliveryResource }) {
  const d = props.delivery;
  return (
    <li>
      <details class="delivery">
        <summary>
          <DeliveryStatus status={d.status} />
          <code class="event">{d.event}</code>
          <span class="delivery-answer">{answerOf(d)}</span>
          <span>
            attempt {d.attempt} of {d.max_attempts}
          </span>
          {d.next_retry_at && (
            <span>
              next retry <Time value={d.next_retry_at} />
            </span>
          )}
          {d.duration_ms !== null && <span>{d.duration_ms} ms</span>}
          <span class="muted">
            <Time value={d.created_at} />
          </span>
        </summary>
        <div class="delivery-body">
          <h3>Payload sent</h3>
          <pre tabIndex={0} aria-label={`Payload of delivery ${d.id}`}>
            {JSON.stringify(d.payload, null, 2)}
          </pre>
          <h3>Response</h3>
          {d.response_body ? (
            <pre tabIndex={0} aria-label={`Response body of delivery ${d.id}`}>
              {d.response_body}
            </pre>
          ) : (
            <p class="muted">{d.error ?? 'No response body.'}</p>
          )}
          {d.attempts.length > 0 && (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Attempts of delivery {d.id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">Result</th>
                    <th scope="col">Started</th>
                    <th scope="col" class="num">
                      Duration
                    </th>
                    <th scope="col">Answer</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempts.map((a) => (
                    <tr>
                      <td>{a.attempt}</td>
                      <td>
                        <DeliveryStatus status={a.status} />
                      </td>
                      <td>
                        <Time value={a.started_at} />
                      </td>
                      <td class="num">{a.duration_ms === null ? '—' : `${a.duration_ms} ms`}</td>
                      <td>{a.response_code !== null ? `HTTP ${a.response_code}` : (a.error ?? '—')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      </details>
    </li>
  );
}

function countText(n: number): string {
  if (n >= MAX_DELIVERIES_SHOWN) return `The ${MAX_DELIVERIES_SHOWN} most recent deliveries`;
  return n === 1 ? 'One delivery' : `${n} deliveries`;
}

/** The history; live (data-live) while a delivery is pending, so its outcome appears without a reload. */
export function DeliveryHistory(props: { deliveries: DeliveryResource[] }) {
  const pending = props.deliveries.some((d) => d.status === 'pending');
  return (
    <section id="deliveries" class="card" aria-labelledby="deliveries-title" data-live={pending ? String(LIVE_EVERY_MS) : undefined}>
      <h2 id="deliveries-title">Recent deliveries</h2>
      {props.deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">
          <p>Events appear here when a run of one of your scans ends. Send a test to see one now.</p>
        </EmptyState>
      ) : (
        <>
          <p class="hint">
            {countText(props.deliveries.length)}, newest first{pending ? '; this list refreshes while one is pending' : ''}. Open one to see what was sent and what came back.
          </p>
          <ul class="deliveries">
            {props.deliveries.map((delivery) => (
              <Delivery delivery={delivery} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** GET /webhooks/:id, and the page again with the edit form's errors (422). */
export function WebhookDetailPage(props: { frame: Frame; webhook: WebhookResource; deliveries: DeliveryResource[]; values: WebhookFormValues; errors?: FieldErrors | undefined }) {
  const { webhook, frame } = props;
  return (
    <Layout title={`Webhook ${webhook.id}`} {...frame} section="webhooks">
      <PageHeader title="Webhook" subtitle={<span class="webhook-url">{webhook.url}</span>}>
        <form method="post" action={`/webhooks/${webhook.id}/test`} class="inline">
          <CsrfField token={frame.csrfToken} />
          <button type="submit" class="secondary">
            Send a test ping
          </button>
        </form>
        <a class="button danger" href={`/webhooks/${webhook.id}/delete`}>
          Delete
        </a>
      </PageHeader>
      <div class="webhook-columns">
        <section class="card" aria-labelledby="summary-title">
          <h2 id="summary-title">Summary</h2>
          <dl class="details">
            <dt>Status</dt>
            <dd>
              <ActiveBadge active={webhook.is_active} />
            </dd>
            <dt>Service</dt>
            <dd>{SERVICE_NAMES[webhook.service]}</dd>
            <dt>Events</dt>
            <dd>
              {webhook.events.map((event) => (
                <code class="event">{event}</code>
              ))}
            </dd>
            <dt>Description</dt>
            <dd>{webhook.description ?? <span class="muted">None</span>}</dd>
            <dt>Created</dt>
            <dd>
              <Time value={webhook.created_at} />
            </dd>
            <dt>Last delivery</dt>
            <dd>
              <LastDelivery webhook={webhook} />
            </dd>
          </dl>
          <h3>Signing secret</h3>
          <p>
            The secret was shown once, when the webhook was created or its secret last rotated. Rotating makes a new one: deliveries are signed with it from then on,
            and receivers still holding the old one will reject them.
          </p>
          <form method="post" action={`/webhooks/${webhook.id}/rotate`} data-confirm="Rotate the signing secret? Receivers must be given the new one.">
            <CsrfField token={frame.csrfToken} />
            <button type="submit" class="secondary">
              Rotate secret
            </button>
          </form>
        </section>
        <section class="card" aria-labelledby="edit-title">
          <h2 id="edit-title">Edit</h2>
          <FormProblems errors={props.errors} />
          <form method="post" action={`/webhooks/${webhook.id}`} class="stack" novalidate>
            <CsrfField token={frame.csrfToken} />
            <WebhookFields values={props.values} errors={props.errors} withActive />
            <button type="submit">Save changes</button>
          </form>
        </section>
      </div>
      <DeliveryHistory deliveries={props.deliveries} />
    </Layout>
  );
}

/** GET /webhooks/:id/delete: what deleting removes, and the button that does it. */
export function DeleteWebhookPage(props: { frame: Frame; webhook: WebhookResource; deliveries: number }) {
  const { webhook, frame } = props;
  return (
    <Layout title="Delete webhook" {...frame} section="webhooks" narrow>
      <div class="card">
        <h1>Delete this webhook?</h1>
        <p>
          <span class="webhook-url">{webhook.url}</span> will receive no more events, and its delivery history ({props.deliveries >= MAX_DELIVERIES_SHOWN ? `at least ${MAX_DELIVERIES_SHOWN}` : props.deliveries}{' '}
          {props.deliveries === 1 ? 'delivery' : 'deliveries'}) is deleted with it. This cannot be undone.
        </p>
        <form method="post" action={`/webhooks/${webhook.id}/delete`} class="actions">
          <CsrfField token={frame.csrfToken} />
          <button type="submit" class="danger">
            Delete webhook
          </button>
          <a href={`/webhooks/${webhook.id}`}>Cancel</a>
        </form>
      </div>
    </Layout>
  );
}
