/**
 * The one place errors become responses. AppErrors carry their own code; Fastify's own errors
 * (bad JSON, oversized bodies, schema validation) are mapped to the same Laravel-style bodies.
 * 5xx texts never reach the client: they are logged with the request id instead.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, statusOf, validationError } from '../shared/errors.js';
import { toFieldErrors } from './validation-errors.js';

/** The property names of the schema part that failed (body, querystring, params), in order. */
function fieldOrder(request: FastifyRequest, context: string | undefined): string[] {
  const schema = request.routeOptions.schema as Record<string, { properties?: Record<string, unknown> } | undefined> | undefined;
  return Object.keys(schema?.[context ?? 'body']?.properties ?? {});
}

function toAppError(error: FastifyError, request: FastifyRequest, bodyLimit: number): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) return validationError(toFieldErrors(error.validation, fieldOrder(request, error.validationContext)));
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `The request body is larger than the limit of ${bodyLimit} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Unsupported Content-Type: send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'The request body is empty but its Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('bad_request', 'The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return new AppError('bad_request', 'The request body is not valid JSON.');
  return undefined;
}

export function registerErrorHandling(app: FastifyInstance, options: { baseUrl: string; bodyLimit: number }): void {
  const challenge = `Bearer resource_metadata="${options.baseUrl}/.well-known/oauth-protected-resource"`;

  const send = (reply: FastifyReply, status: number, body: Record<string, unknown>) => {
    if (status === 401) reply.header('www-authenticate', challenge);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  };

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toAppError(error, request, options.bodyLimit);
    if (known) {
      if (known.context) request.log.info({ code: known.code, context: known.context }, known.message);
      const status = statusOf(known.code);
      return send(reply, status, known.errors ? { message: known.message, errors: known.errors } : { message: known.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return send(reply, status, { message: error.message });
    request.log.error({ err: error }, 'request failed');
    return send(reply, 500, { message: 'Server Error' });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    return send(reply, 404, { message: `The route ${request.method} ${path} could not be found.` });
  });
}
