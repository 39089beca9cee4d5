/** The pages of password reset: ask for a link, "check your mail", the new password form, and a link that cannot be used. */
import type { FieldErrors } from '../../shared/errors.js';
import { PASSWORD_MIN } from '../../accounts/password-policy.js';
import { Layout } from '../layout.js';
import { Alert, CsrfField, ErrorSummary, Field } from '../components.js';
import type { EntryPageBase } from './verify-email.views.js';
import { PASSWORD_HINT } from './sign-up.views.js';

/** The form asking for a reset link. */
export function ForgotPasswordPage(props: EntryPageBase & { email?: string; errors?: FieldErrors | undefined }) {
  return (
    <Layout title="Forgot your password?" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Forgot your password?</h1>
        <p>Give the email address of your account: we will mail you a link to choose a new password. It also sets a first password for an account made by an agent or an administrator.</p>
        <form method="post" action="/forgot-password" class="stack">
          <CsrfField token={props.csrfToken} />
          <Field name="email" label="Email" type="email" autocomplete="email" required value={props.email} errors={props.errors} />
          <button type="submit">Mail me a link</button>
        </form>
        <p class="auth-links">
          <a href="/sign-in">Back to sign in</a>
        </p>
      </div>
    </Layout>
  );
}

/** After asking: the same words whether or not the address has an account. */
export function ResetLinkSentPage(props: EntryPageBase & { email: string }) {
  return (
    <Layout title="Check your mail" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Check your mail</h1>
        <p>
          If an account uses <strong>{props.email}</strong>, we sent it a link to choose a new password. The link works once and expires in 1 hour.
        </p>
        <p>No mail after a few minutes? Look in your spam folder, check the address, and <a href="/forgot-password">ask again</a> (at most once a minute).</p>
        <p class="auth-links">
          <a href="/sign-in">Back to sign in</a>
        </p>
      </div>
    </Layout>
  );
}

/** The new password form of a usable link. */
export function ResetPasswordPage(props: EntryPageBase & { token: string; email: string; errors?: FieldErrors | undefined; message?: string | undefined }) {
  return (
    <Layout title="Choose a new password" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Choose a new password</h1>
        <p>
          For the account <strong>{props.email}</strong>. Every browser signed in to it will be signed out.
        </p>
        <ErrorSummary message={props.message} />
        <form method="post" action="/reset-password" class="stack">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="token" value={props.token} />
          {/* Lets password managers file the new password under the right account. */}
          <input type="hidden" name="username" autocomplete="username" value={props.email} />
          <Field name="password" label="New password" type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} errors={props.errors} hint={PASSWORD_HINT} />
          <Field name="password_confirmation" label="Confirm the new password" type="password" autocomplete="new-password" required errors={props.errors} />
          <button type="submit">Set the password</button>
        </form>
      </div>
    </Layout>
  );
}

/** A reset link that cannot be used: which problem, and the way to a new one. */
export function ResetLinkFailedPage(props: EntryPageBase & { message: string }) {
  return (
    <Layout title="This link cannot be used" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>This link cannot be used</h1>
        <Alert kind="error">
          <p>{props.message}</p>
        </Alert>
        <p>
          <a class="button" href="/forgot-password">
            Ask for a new link
          </a>
        </p>
      </div>
    </Layout>
  );
}
