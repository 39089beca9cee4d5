/** The pages of email verification: "check your mail", the link's confirm button, a link that cannot be used, and the resend form. */
import type { User } from '../../db/schema.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { Alert, CsrfField, Field } from '../components.js';

/** What every account-entry page gets from its request. */
export interface EntryPageBase {
  user: User | null;
  csrfToken: string;
  flash?: Flash | null;
}

/** The form that asks for a new verification link (answers the same for any address). */
export function ResendForm(props: { csrfToken: string; email?: string | undefined; id?: string }) {
  return (
    <form method="post" action="/verify-email/resend" class="stack" aria-label="Send a new verification link">
      <CsrfField token={props.csrfToken} />
      <Field name="email" id={props.id ?? 'f-resend-email'} label="Email" type="email" autocomplete="email" required value={props.email} />
      <button type="submit" class="secondary">
        Send a new link
      </button>
    </form>
  );
}

/** After sign-up or a resend: the link is in the mail (said the same way for any address). */
export function CheckMailPage(props: EntryPageBase & { email: string; resent?: boolean }) {
  return (
    <Layout title="Check your mail" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Check your mail</h1>
        {props.resent && (
          <Alert kind="success">
            <p>If an account that still needs verifying uses this address, a new link is on its way.</p>
          </Alert>
        )}
        <p>
          We sent a message to <strong>{props.email}</strong>. Open the link in it to verify your address and sign in. The link works once and
          expires in 24 hours.
        </p>
        <h2>No mail?</h2>
        <p>Wait a minute and look in your spam folder. Then send a new link (at most one a minute):</p>
        <ResendForm csrfToken={props.csrfToken} email={props.email} />
        <p class="auth-links">
          <a href="/sign-in">Sign in</a>
        </p>
      </div>
    </Layout>
  );
}

/** A verification link that cannot be used: which problem, and the way to a new link. */
export function VerifyFailedPage(props: EntryPageBase & { message: string }) {
  return (
    <Layout title="This link cannot be used" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>This link cannot be used</h1>
        <Alert kind="error">
          <p>{props.message}</p>
        </Alert>
        <p>Already verified? <a href="/sign-in">Sign in</a>. Otherwise, ask for a new link:</p>
        <ResendForm csrfToken={props.csrfToken} />
      </div>
    </Layout>
  );
}

/**
 * A verification link opened: the address and a button that posts the link (only the post spends
 * it and signs in, so opening the link, or a mail scanner fetching it, changes nothing).
 */
export function ConfirmEmailPage(props: EntryPageBase & { token: string; email: string }) {
  return (
    <Layout title="Confirm your email address" user={props.user} csrfToken={props.csrfToken} flash={props.flash} narrow>
      <div class="card">
        <h1>Confirm your email address</h1>
        <p>
          Confirm that <strong>{props.email}</strong> is your address. You will be signed in to its Rampart account.
        </p>
        <form method="post" action="/verify-email" class="stack">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="token" value={props.token} />
          <button type="submit">Confirm my email address</button>
        </form>
        <p>Did not sign up to Rampart? Close this page: nothing happens without the button.</p>
      </div>
    </Layout>
  );
}
