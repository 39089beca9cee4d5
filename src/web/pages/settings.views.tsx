/**
 * The profile page of settings: the account and its plan (what the plan allows), and the forms to
 * change the name, the password and the email address. Also the settings sub-navigation (shared
 * with the API keys page) and the page a confirmation link lands on.
 */
import type { User } from '../../db/schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { mayHaveNarrative, mayScanUnmanaged, type Role } from '../../shared/roles.js';
import { Layout } from '../layout.js';
import type { Flash } from '../flash.js';
import { Alert, CsrfField, Field, PageHeader, Time } from '../components.js';

/** The two pages of settings, as tabs. */
export function SettingsNav(props: { current: 'profile' | 'api-keys' }) {
  const tabs = [
    { key: 'profile', href: '/settings', label: 'Profile' },
    { key: 'api-keys', href: '/settings/api-keys', label: 'API keys' },
  ] as const;
  return (
    <nav aria-label="Settings" class="subnav">
      <ul>
        {tabs.map((tab) => (
          <li>
            <a href={tab.href} aria-current={tab.key === props.current ? 'page' : undefined}>
              {tab.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** What a plan allows, in words (the account sees why an option is missing from its scan form). */
export function PlanAllowances(props: { role: Role; ratePerMinute: number }) {
  const narrative = mayHaveNarrative(props.role);
  const unmanaged = mayScanUnmanaged(props.role);
  return (
    <ul class="plan-allowances">
      <li>
        <strong>Attack narratives in reports:</strong> {narrative ? 'included' : 'not included (premium, pro or admin plan)'}
      </li>
      <li>
        <strong>Internal network (Unmanaged) scans:</strong> {unmanaged ? 'included' : 'not included (pro or admin plan)'}
      </li>
      <li>
        <strong>API rate limit:</strong> {props.ratePerMinute.toLocaleString('en')} requests per minute
      </li>
    </ul>
  );
}

/** Which form of the page failed, with its errors and what was typed in it. */
export interface SettingsFormState {
  form: 'name' | 'password' | 'email';
  errors: FieldErrors;
  values: Record<string, string>;
}

export interface SettingsPageProps {
  user: User;
  csrfToken: string;
  flash?: Flash | null | undefined;
  ratePerMinute: number;
  failed?: SettingsFormState | undefined;
}

export function SettingsPage(props: SettingsPageProps) {
  const { user, failed } = props;
  const errorsOf = (form: SettingsFormState['form']) => (failed?.form === form ? failed.errors : undefined);
  const valueOf = (form: SettingsFormState['form'], name: string, fallback: string) => (failed?.form === form ? (failed.values[name] ?? fallback) : fallback);
  const hasPassword = user.password_hash !== null;
  return (
    <Layout title="Settings" user={user} csrfToken={props.csrfToken} section="settings" flash={props.flash}>
      <PageHeader title="Settings" subtitle="Your account, your plan and how you sign in." />
      <SettingsNav current="profile" />
      {failed && (
        <Alert kind="error">
          <p>Nothing was changed: check the {failed.form === 'name' ? 'name' : failed.form === 'password' ? 'password form' : 'email form'} below.</p>
        </Alert>
      )}

      <section class="card" aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl class="details">
          <dt>Name</dt>
          <dd>{user.name}</dd>
          <dt>Email</dt>
          <dd>
            {user.email} {user.email_verified_at ? <span class="badge">verified</span> : <span class="badge unverified">not verified</span>}
          </dd>
          <dt>Plan</dt>
          <dd>
            <span class="badge plan">{user.role}</span>
            <PlanAllowances role={user.role} ratePerMinute={props.ratePerMinute} />
          </dd>
          <dt>Member since</dt>
          <dd>
            <Time value={user.created_at} />
          </dd>
        </dl>
      </section>

      <section class="card" aria-labelledby="name-heading">
        <h2 id="name-heading">Name</h2>
        <form method="post" action="/settings/name" class="stack">
          <CsrfField token={props.csrfToken} />
          <Field name="name" label="Name" required maxLength={255} autocomplete="name" value={valueOf('name', 'name', user.name)} errors={errorsOf('name')} />
          <button type="submit">Save name</button>
        </form>
      </section>

      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        {hasPassword ? (
          <form method="post" action="/settings/password" class="stack">
            <CsrfField token={props.csrfToken} />
            <Field id="f-password-current" name="current_password" label="Current password" type="password" required autocomplete="current-password" errors={errorsOf('password')} />
            <Field
              name="password"
              label="New password"
              type="password"
              required
              minLength={12}
              maxLength={1024}
              autocomplete="new-password"
              hint="At least 12 characters, and not a common password."
              errors={errorsOf('password')}
            />
            <Field name="password_confirmation" label="New password again" type="password" required autocomplete="new-password" errors={errorsOf('password')} />
            <p class="hint">Changing the password signs out every other browser signed in to this account.</p>
            <button type="submit">Change password</button>
          </form>
        ) : (
          <>
            <p>
              This account has no password yet: it was made by an agent, the command line or an identity provider. To set one, sign out and use{' '}
              <a href="/forgot-password">Forgot your password?</a> with {user.email}.
            </p>
            {failed?.form === 'password' && <p class="field-error">{Object.values(failed.errors).flat().join(' ')}</p>}
          </>
        )}
      </section>

      <section class="card" aria-labelledby="email-heading">
        <h2 id="email-heading">Email address</h2>
        <p>We send a link to the new address; the change happens when you follow it. Your current address is told about it.</p>
        <form method="post" action="/settings/email" class="stack">
          <CsrfField token={props.csrfToken} />
          <Field name="email" label="New email address" type="email" required maxLength={255} autocomplete="email" value={valueOf('email', 'email', '')} errors={errorsOf('email')} />
          {hasPassword ? (
            <Field id="f-email-current" name="current_password" label="Current password" type="password" required autocomplete="current-password" errors={errorsOf('email')} />
          ) : (
            <p class="hint">This account has no password yet; set one first (see Password above).</p>
          )}
          <button type="submit">Send confirmation link</button>
        </form>
      </section>
    </Layout>
  );
}

/** Where a confirmation link lands: the new address, or why the link did not work (422). */
export function EmailConfirmPage(props: { user: User | null; csrfToken: string; email?: string; problem?: string }) {
  const done = props.problem === undefined;
  return (
    <Layout title={done ? 'Email address changed' : 'Email address not changed'} user={props.user} csrfToken={props.csrfToken} section="settings" narrow>
      <div class="card">
        <h1>{done ? 'Email address changed' : 'Email address not changed'}</h1>
        {done ? (
          <Alert kind="success">
            <p>Your account's email address is now {props.email}, and it is verified.</p>
          </Alert>
        ) : (
          <Alert kind="error">
            <p>{props.problem}</p>
          </Alert>
        )}
        <p>{props.user ? <a href="/settings">Back to settings</a> : <a href="/sign-in?next=%2Fsettings">Sign in</a>}</p>
      </div>
    </Layout>
  );
}
