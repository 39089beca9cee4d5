/**
 * The page that shows a webhook's signing secret, the one time it is shown (on creation and after
 * a rotation), and explains how deliveries are signed so that a receiver can check them.
 */
import type { WebhookResource } from '../../webhooks/webhooks.schema.js';
import { Alert, CopyButton, PageHeader } from '../components.js';
import { Layout } from '../layout.js';
import type { Frame } from './webhooks.views.js';

/** Verifying by hand in Node: what the Standard Webhooks libraries do (the tests run this text). */
export const NODE_EXAMPLE = `import { createHmac, timingSafeEqual } from 'node:crypto';

// The secret shown above, kept out of your code (an environment variable, a vault).
const secret = process.env.RAMPART_WEBHOOK_SECRET; // whsec_...
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');

// headers: the request's headers; body: its raw body as text, before any JSON parsing.
export function isFromRampart(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  // Refuse old or future messages: a replayed delivery keeps its old timestamp.
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) return false;
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${body}\`).digest();
  // The header may list several signatures, separated by spaces: any v1 match is enough.
  return headers['webhook-signature'].split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}`;

/** The same check with the public library (npm install standardwebhooks). */
const LIBRARY_EXAMPLE = `import { Webhook } from 'standardwebhooks';

// Throws when the signature or the timestamp is wrong; returns the parsed body otherwise.
const event = new Webhook(process.env.RAMPART_WEBHOOK_SECRET).verify(body, headers);`;

/** How a delivery is signed (Standard Webhooks), with an example of checking it. */
export function SigningScheme() {
  return (
    <section class="card signing" aria-labelledby="signing-title">
      <h2 id="signing-title">How deliveries are signed</h2>
      <p>
        Every delivery is a <code>POST</code> of JSON signed as the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says, with three headers:
      </p>
      <dl class="details">
        <dt>
          <code>webhook-id</code>
        </dt>
        <dd>The message's id: the same on every retry of one event, so a receiver can drop duplicates.</dd>
        <dt>
          <code>webhook-timestamp</code>
        </dt>
        <dd>When this attempt was sent, in seconds since 1970 (UTC).</dd>
        <dt>
          <code>webhook-signature</code>
        </dt>
        <dd>
          <code>v1,</code> followed by the base64 of the HMAC-SHA256 of <code>id.timestamp.body</code> (the three joined by dots, the body exactly as sent). The HMAC key is the
          secret's base64 part after <code>whsec_</code>, decoded.
        </dd>
      </dl>
      <h3>Checking a delivery in Node.js</h3>
      <pre>
        <code>{NODE_EXAMPLE}</code>
      </pre>
      <p>
        The <code>standardwebhooks</code> libraries (JavaScript, Python, Go, Java, Ruby, PHP, Rust, C#...) verify these signatures for you:
      </p>
      <pre>
        <code>{LIBRARY_EXAMPLE}</code>
      </pre>
      <p class="hint">Answer with any 2xx status. Any other answer, or none in time, is retried with growing delays; 410 Gone switches the webhook off.</p>
    </section>
  );
}

/** After POST /webhooks/new or a rotation: the secret, once, and how to use it. */
export function WebhookSecretPage(props: { frame: Frame; webhook: WebhookResource; secret: string; rotated: boolean }) {
  const { webhook } = props;
  const title = props.rotated ? 'New signing secret' : 'Webhook created';
  return (
    <Layout title={title} {...props.frame} section="webhooks">
      <PageHeader title={title} subtitle={webhook.url} />
      <Alert kind="success">
        {props.rotated
          ? 'The secret was rotated: deliveries are signed with the new secret from now on, and the old one no longer verifies.'
          : 'The webhook is active: Rampart will call it when a run of one of your scans ends.'}
      </Alert>
      <section class="card secret-card" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        <p>
          <strong>Copy it now: it is shown only this once.</strong> Store it where your receiver reads it. If you lose it, rotate the secret on the webhook's page.
        </p>
        <div class="secret">
          <code id="webhook-secret">{props.secret}</code>
          <CopyButton target="webhook-secret" label="Copy secret" />
        </div>
      </section>
      <SigningScheme />
      <p class="actions">
        <a class="button" href={`/webhooks/${webhook.id}`}>
          Continue to the webhook
        </a>
        <a href="/webhooks">All webhooks</a>
      </p>
    </Layout>
  );
}
