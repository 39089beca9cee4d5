/**
 * One error type for the whole service. Services throw `AppError`s with a code and a public
 * message; the HTTP error handler (and later the MCP layer) turns the code into a status and a
 * Laravel-style body. Internal context is for the log only and never reaches a client.
 */

/** Every error code the service can raise. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'rate_limited'
  | 'internal'
  | 'service_unavailable';

/** Field name -> messages, as Laravel's validator reports them. */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldErrors | undefined;
  readonly context: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    publicMessage: string,
    options: { errors?: FieldErrors; context?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(publicMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.errors = options.errors;
    this.context = options.context;
  }
}

/** The HTTP status of each code. The switch is exhaustive: a new code fails to compile here. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'validation_failed':
      return 422;
    case 'rate_limited':
      return 429;
    case 'internal':
      return 500;
    case 'service_unavailable':
      return 503;
  }
}

/** The most messages a 422 lists (an array of 100,000 bad items would otherwise list each). */
const MAX_LISTED_ERRORS = 50;

/** The first `max` messages, fields in their order. */
function firstErrors(errors: FieldErrors, max: number): FieldErrors {
  const kept: FieldErrors = {};
  let room = max;
  for (const [field, messages] of Object.entries(errors)) {
    if (room <= 0) break;
    kept[field] = messages.slice(0, room);
    room -= kept[field].length;
  }
  return kept;
}

/**
 * A 422 in Laravel's shape: the message is the first error, followed by
 * "(and N more error[s])" when there are more; `errors` lists the first MAX_LISTED_ERRORS.
 */
export function validationError(errors: FieldErrors): AppError {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const more = messages.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
  return new AppError('validation_failed', message, { errors: messages.length > MAX_LISTED_ERRORS ? firstErrors(errors, MAX_LISTED_ERRORS) : errors });
}

/** A 422 on one field. */
export function fieldError(field: string, message: string): AppError {
  return validationError({ [field]: [message] });
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found.`);
}

export function unauthenticated(message = 'Unauthenticated.', context?: Record<string, unknown>): AppError {
  return new AppError('unauthenticated', message, context ? { context } : {});
}
