/**
 * Logger settings: structured JSON (pino, through Fastify) with a request id on every line.
 * Secrets never reach the log: the Authorization header is not serialized, the API key in
 * `/api/token?key=` is masked, and request bodies (passwords, one-time codes) are never logged.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';

const SECRET_QUERY = /([?&](?:key|token|access_token|code|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]');
}

/** Accepts a caller's X-Request-Id when it looks like one, else makes one. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._-]{8,64}$/.test(given) ? given : randomUUID();
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.api_key', '*.code'], censor: '[REDACTED]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}

/** The logging surface background services need (pino's, which Fastify's logger is). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
