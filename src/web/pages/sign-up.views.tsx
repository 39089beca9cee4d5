/** The sign-up page: email, optional name, password and its confirmation. */
import type { FieldErrors } from '../../shared/errors.js';
import { PASSWORD_MIN } from '../../accounts/password-policy.js';
import { Layout } from '../layout.js';
import { CsrfField, ErrorSummary, Field } from '../components.js';
import type { EntryPageBase } from './verify-email.views.js';

/** What the sign-up page shows besides its frame. */
export interface SignUpView extends EntryPageBase {
  /** What was typed (passwords are never sent back). */
  values?: { email?: string; name?: string };
  errors?: FieldErrors | undefined;
  message?: string | undefined;
}

/** The hint under every new-password field. */
export const PASSWORD_HINT = `At least ${PASSWORD_MIN} characters, and not a password found in lists of leaked ones. A few unrelated words make a good one.`;

/** The sign-up form, with each refused field's error beside it. */
export function SignUpPage(props: SignUpView) {
  const values = props.values ?? {};
  return (
    <Layout title="Create an account" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Create an account</h1>
        <ErrorSummary message={props.message} />
        <form method="post" action="/sign-up" class="stack">
          <CsrfField token={props.csrfToken} />
          <Field name="email" label="Email" type="email" autocomplete="email" required value={values.email} errors={props.errors} />
          <Field name="name" label="Name" autocomplete="name" value={values.name} maxLength={255} errors={props.errors} hint="Optional: how Rampart addresses you." />
          <Field name="password" label="Password" type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} errors={props.errors} hint={PASSWORD_HINT} />
          <Field name="password_confirmation" label="Confirm the password" type="password" autocomplete="new-password" required errors={props.errors} />
          <button type="submit">Create account</button>
        </form>
        <p class="auth-links">
          <span>
            Have an account? <a href="/sign-in">Sign in</a>
          </span>
        </p>
      </div>
    </Layout>
  );
}
