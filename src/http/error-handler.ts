/**
 * The one place errors become responses. AppErrors carry their own code; Fastify's own errors
 * (bad JSON, oversized bodies, schema validation), the router's (a malformed or over-long URL)
 * and the HTTP parser's (headers too large) are mapped to the same Laravel-style bodies, each with
 * an X-Request-Id. 5xx texts never reach the client: they are logged with the request id instead.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Fastify's `frameworkErrors` option: errors raised before any route is chosen, so before every
 * hook (the request id header included), hence set here.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : error.code === 'FST_ERR_BAD_URL' ? 400 : 500;
  const message = status === 414 ? 'The request URL is too long.' : status === 400 ? 'The request URL is malformed.' : 'Server Error';
  if (status === 500) request.log.error({ err: error }, 'request failed');
  void reply.code(status).header('x-request-id', request.id).type(JSON_TYPE).send({ message });
}

/** The most bytes a request line may take before an over-long request is called a long URL (414) rather than long headers (431). */
const LONG_REQUEST_LINE = 8192;

/**
 * Node's `clientError`: a request the HTTP parser refused (headers or URL beyond the size limit,
 * broken syntax, too slow). No Fastify request exists, so the reply is written to the socket.
 */
export function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'The request is malformed.';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'The request took too long to arrive.';
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node hands over the bytes it received: a request line without its end is an over-long URL.
    const raw = error.rawPacket as unknown;
    const lineEnd = Buffer.isBuffer(raw) ? raw.indexOf('\r\n') : -1;
    const longUrl = lineEnd === -1 || lineEnd > LONG_REQUEST_LINE;
    status = longUrl ? 414 : 431;
    message = longUrl ? 'The request URL is too long.' : 'The request headers are too large.';
  }
  const id = randomUUID();
  this.log.debug({ err: error, reqId: id }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ message });
    const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, `Content-Type: ${JSON_TYPE}`, `Content-Length: ${Buffer.byteLength(body)}`, `X-Request-Id: ${id}`, 'Connection: close'];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export function registerErrorHandling(
  app: FastifyInstance,
  options: {
    baseUrl: string;
    bodyLimit: number;
    /** Answers an unknown path a browser asked for with a page; returns undefined to fall back to JSON. */
    notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
  },
): void {
  const challenge = `Bearer resource_metadata="${options.baseUrl}/.well-known/oauth-protected-resource"`;

  const send = (reply: FastifyReply, status: number, body: Record<string, unknown>) => {
    if (status === 401) reply.header('www-authenticate', challenge);
    return reply.code(status).type(JSON_TYPE).send(body);
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
    const page = options.notFoundPage?.(request, reply);
    if (page) return page;
    const path = request.url.split('?')[0] ?? request.url;
    return send(reply, 404, { message: `The route ${request.method} ${path} could not be found.` });
  });
}
