/** The page of an error: what happened in words, and where to go from here. */
import type { User } from '../../db/schema.js';
import { Layout } from '../layout.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in to continue',
  403: 'Not allowed',
  404: 'Page not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Check the form',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Unavailable',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  404: 'There is nothing here, or it belongs to another account.',
  500: 'The error has been logged. Try again; if it keeps happening, tell the person who runs this Rampart.',
};

export function ErrorPage(props: { status: number; message?: string | undefined; user: User | null; csrfToken: string }) {
  const title = TITLES[props.status] ?? (props.status >= 500 ? 'Something went wrong' : 'Request refused');
  const message = props.message ?? DEFAULT_MESSAGES[props.status] ?? DEFAULT_MESSAGES[500];
  return (
    <Layout title={title} user={props.user} csrfToken={props.csrfToken} narrow>
      <div class="card error-page">
        <p class="status-code">{props.status}</p>
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/">Go to the dashboard</a>
        </p>
      </div>
    </Layout>
  );
}
