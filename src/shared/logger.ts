/**
 * Logger settings: structured JSON (pino, through Fastify) with a request id on every line.
 * Tokens, keys, secrets and passwords never reach the log, in any form:
 * - request lines carry the method, the URL with every secret-looking query value masked, and the
 *   client address; never headers or bodies;
 * - header objects logged anywhere have their credential headers censored (pino `redact`);
 * - every finished line, whatever wrote it (Fastify's own lines, error stacks, messages), is
 *   scrubbed of anything shaped like a JWT, a Rampart API key or a webhook secret.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import { MASK, redactSecrets } from './secret-shapes.js';

export { redactSecrets };

/**
 * Query parameters whose value is a credential whatever it looks like: exact names, then any name
 * with one of these words as a part (`client_secret`, `x-api-key`, `refresh_token`, ...).
 */
const SECRET_PARAMS = new Set(['api_token', 'token', 'access_token', 'key', 'api_key', 'apikey', 'secret', 'password', 'code', 'sig', 'signature', 'expires']);
const SECRET_PARAM_PART = /(?:^|[_.-])(?:token|secret|password|passwd|key|apikey|sig|signature|credentials?|auth|session)(?:$|[_.-])/i;

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The URL with the value of every secret-looking query parameter, and every secret-shaped value, masked. */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return redactSecrets(url);
  const path = url.slice(0, start);
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end === -1 ? undefined : end);
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1) return redactSecrets(pair);
    const name = decodeComponent(pair.slice(0, eq)).toLowerCase();
    const value = pair.slice(eq + 1);
    const decoded = decodeComponent(value);
    const secret = SECRET_PARAMS.has(name) || SECRET_PARAM_PART.test(name) || redactSecrets(decoded) !== decoded;
    return `${pair.slice(0, eq)}=${secret ? MASK : value}`;
  });
  const fragment = end === -1 ? '' : redactSecrets(url.slice(end));
  return `${redactSecrets(path)}?${pairs.join('&')}${fragment}`;
}

/** Accepts a caller's X-Request-Id when it looks like one, else makes one. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._-]{8,64}$/.test(given) ? given : randomUUID();
}

/** Credential headers, censored wherever a headers object is logged (one level deep or at the top). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', '["set-cookie"]', '["x-api-key"]', '["proxy-authorization"]'];
const REDACT_PATHS = [
  ...CREDENTIAL_HEADERS.flatMap((h) => [`headers.${h}`, `*.headers.${h}`]),
  '*.password',
  '*.api_key',
  '*.code',
  '*.secret',
  '*.token',
];

/** pino settings shared by the API's logger and the background roles' logger. */
function baseOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: MASK },
    hooks: { streamWrite: redactSecrets },
  };
}

/** Fastify's logger settings; `stream` replaces stdout (tests capture the real output with it). */
export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    ...baseOptions(level),
    ...(stream ? { stream } : {}),
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}

/** The logger of processes without the API (`rampart worker`, `rampart scheduler`). */
export function createLogger(level: string): pino.Logger {
  return pino(baseOptions(level));
}

/** The logging surface background services need (pino's, which Fastify's logger is). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
