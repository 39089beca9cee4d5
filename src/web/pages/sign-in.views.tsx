/** The sign-in page: email and password, the identity provider's button, and the way to a new verification link. */
import type { FieldErrors } from '../../shared/errors.js';
import { Layout } from '../layout.js';
import { Alert, CsrfField, Field } from '../components.js';
import { ResendForm, type EntryPageBase } from './verify-email.views.js';

/** What the sign-in page shows besides its frame. */
export interface SignInView extends EntryPageBase {
  /** Where to go after signing in (already made safe). */
  next: string;
  email?: string;
  /** The refusal of the last attempt, shown above the form. */
  error?: string | undefined;
  errors?: FieldErrors | undefined;
  /** The right password of an unverified account: offer a new link. */
  unverified?: boolean;
  /** The identity provider's name, when one is configured. */
  oidcName?: string | undefined;
  signUp: boolean;
}

/** The sign-in form, with the refusal of the last attempt and, for an unverified account, the resend form. */
export function SignInPage(props: SignInView) {
  return (
    <Layout title="Sign in" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Sign in to Rampart</h1>
        {props.user && (
          <Alert kind="info">
            <p>You are signed in as {props.user.email}. Signing in again replaces that session.</p>
          </Alert>
        )}
        {props.error && (
          <Alert kind="error">
            <p>{props.error}</p>
          </Alert>
        )}
        <form method="post" action="/sign-in" class="stack">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="next" value={props.next} />
          <Field name="email" label="Email" type="email" autocomplete="username" required value={props.email} errors={props.errors} />
          <Field name="password" label="Password" type="password" autocomplete="current-password" required errors={props.errors} />
          <button type="submit">Sign in</button>
        </form>
        {props.oidcName && (
          <>
            <p class="divider">or</p>
            <a class="button secondary" href={`/auth/oidc?next=${encodeURIComponent(props.next)}`}>
              Sign in with {props.oidcName}
            </a>
          </>
        )}
        <p class="auth-links">
          <a href="/forgot-password">Forgot your password?</a>
          {props.signUp && <a href="/sign-up">Create an account</a>}
        </p>
      </div>
      {props.unverified && (
        <div class="card">
          <h2>Send a new verification link</h2>
          <ResendForm csrfToken={props.csrfToken} email={props.email} />
        </div>
      )}
    </Layout>
  );
}
