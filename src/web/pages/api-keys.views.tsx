/**
 * The API keys page of settings: the account's keys (name, prefix, created, last used), the form
 * that creates one, revoke buttons, and, right after a creation, the whole key shown this once
 * with a copy button and the command that exchanges it for a token.
 */
import type { User } from '../../db/schema.js';
import type { PublicApiKey } from '../../accounts/api-keys.service.js';
import type { FieldErrors } from '../../shared/errors.js';
import { Layout } from '../layout.js';
import type { Flash } from '../flash.js';
import { Alert, CopyButton, CsrfField, EmptyState, Field, PageHeader, Time } from '../components.js';
import { SettingsNav } from './settings.views.js';

export interface ApiKeysPageProps {
  user: User;
  csrfToken: string;
  flash?: Flash | null | undefined;
  baseUrl: string;
  keys: PublicApiKey[];
  /** The key just created: its whole value is on this response only. */
  created?: { key: string; record: PublicApiKey } | undefined;
  /** The create form that failed, with what was typed. */
  failed?: { errors: FieldErrors; name: string } | undefined;
}

function CreatedKey(props: { baseUrl: string; created: NonNullable<ApiKeysPageProps['created']> }) {
  const exchange = `curl -X POST '${props.baseUrl}/api/token?key=${props.created.key}'`;
  return (
    <section class="card created-key" aria-labelledby="created-heading">
      <h2 id="created-heading">Your new key "{props.created.record.name}"</h2>
      <Alert kind="warning">
        <p>Copy it now: this is the only time Rampart shows it. Only a digest of it is stored, so it cannot be shown again.</p>
      </Alert>
      <div class="secret">
        <code id="new-api-key">{props.created.key}</code>
        <CopyButton target="new-api-key" label="Copy key" />
      </div>
      <h3>Use it</h3>
      <p>Exchange the key for a bearer token (valid for an hour; exchange again for a new one), then send the token on every API and MCP request:</p>
      <div class="secret">
        <code id="exchange-command">{exchange}</code>
        <CopyButton target="exchange-command" label="Copy command" />
      </div>
      <pre>{`curl -H 'Authorization: Bearer <token>' '${props.baseUrl}/api/user'`}</pre>
      <p class="hint">
        Send the key only to <code>/api/token</code>. Give each integration its own key, so that revoking one stops only that one. See the <a href="/docs">API reference</a>.
      </p>
    </section>
  );
}

function KeyList(props: { keys: PublicApiKey[]; csrfToken: string; createdId?: number | undefined }) {
  if (props.keys.length === 0) {
    return (
      <EmptyState title="No API keys yet">
        <p>Create a key below to use the API, the MCP endpoint or the command line from a script.</p>
      </EmptyState>
    );
  }
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => (
            <tr id={`key-${key.id}`} class={key.id === props.createdId ? 'highlight' : undefined}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>
                <Time value={key.created_at} />
              </td>
              <td>
                <Time value={key.last_used_at} empty="never" />
              </td>
              <td class="num">
                <form method="post" action={`/settings/api-keys/${key.id}/revoke`} class="inline" data-confirm={`Revoke the key "${key.name}" (${key.prefix})? Integrations using it will stop getting tokens.`}>
                  <CsrfField token={props.csrfToken} />
                  <button type="submit" class="danger small" aria-label={`Revoke ${key.name} (${key.prefix})`}>
                    Revoke
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ApiKeysPage(props: ApiKeysPageProps) {
  return (
    <Layout title="API keys" user={props.user} csrfToken={props.csrfToken} section="settings" flash={props.flash}>
      <PageHeader title="Settings" subtitle="API keys let scripts, CI jobs and agents use Rampart as you." />
      <SettingsNav current="api-keys" />
      {props.created && <CreatedKey baseUrl={props.baseUrl} created={props.created} />}

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">API keys</h2>
        <KeyList keys={props.keys} csrfToken={props.csrfToken} createdId={props.created?.record.id} />
        <p class="hint">Revoking a key stops new token exchanges and refreshes with it; tokens already issued work until they expire (an hour at most).</p>
      </section>

      <section class="card" aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <form method="post" action="/settings/api-keys" class="stack">
          <CsrfField token={props.csrfToken} />
          <Field
            name="name"
            label="Key name"
            required
            maxLength={255}
            hint="What will use it, e.g. “CI pipeline” or “Claude agent”."
            value={props.failed?.name ?? ''}
            errors={props.failed?.errors}
          />
          <button type="submit">Create key</button>
        </form>
      </section>
    </Layout>
  );
}
