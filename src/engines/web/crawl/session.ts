/**
 * Lost-session detection for authenticated scans: a response that redirected to a login page
 * (its URL names login/signin, or it shows a form with a password field), or a 401, means the
 * session ended (it expired, or a request ended it); the keeper then replays the login through
 * the engine's `relogin` hook, at most once per interval so that a site that always shows a login
 * somewhere cannot make the scan log in over and over.
 */
import type { WebResponse } from '../contract.js';

const LOGIN_URL = /(?:log-?in|sign-?in|auth(?:enticate)?|session\/new)(?:[./?#_-]|$)/i;
const PASSWORD_FIELD = /<input\b[^>]*\btype\s*=\s*["']?password/i;

/**
 * True when the exchange shows the session was lost (see the module comment). `requested`: the
 * URL asked for when redirects were followed (the response's own request is the last hop's).
 */
export function showsLostSession(response: WebResponse, requested: string = response.request.url): boolean {
  if (LOGIN_URL.test(new URL(requested).pathname)) return false;
  if (response.status === 401) return true;
  if (response.redirects.length === 0 && !(response.status >= 300 && response.status < 400)) return false;
  const landed = response.redirects.at(-1) ?? response.headers.location ?? '';
  return LOGIN_URL.test(landed) || PASSWORD_FIELD.test(response.body);
}

export interface SessionKeeper {
  /** Whether a login is configured (a lost session can be restored). */
  readonly active: boolean;
  /** Counts the sessions: read it before a request, hand it to `restore` when the response showed the session lost. */
  readonly generation: number;
  /**
   * Called when a response to a request sent in session `generation` showed a lost session:
   * true at once when a newer session exists already (the caller retries with it); otherwise
   * logs in again unless it did so within the interval, and resolves true when a new session is
   * in place.
   */
  restore(generation: number): Promise<boolean>;
  /** Logins replayed after the first. */
  readonly relogins: number;
}

/** A keeper around the engine's `relogin` (absent: no login script, nothing to restore). */
export function createSessionKeeper(relogin: (() => Promise<void>) | undefined, minIntervalMs: number, now: () => number = Date.now): SessionKeeper {
  let last = -Infinity;
  let running: Promise<boolean> | undefined;
  let generation = 0;
  return {
    active: relogin !== undefined,
    get generation() {
      return generation;
    },
    get relogins() {
      return generation;
    },
    restore(seen) {
      if (!relogin) return Promise.resolve(false);
      if (running) return running;
      if (seen !== generation) return Promise.resolve(true);
      if (now() - last < minIntervalMs) return Promise.resolve(false);
      last = now();
      running = relogin()
        .then(
          () => {
            generation++;
            return true;
          },
          () => false,
        )
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}
