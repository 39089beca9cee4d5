/**
 * Reading the settings and admin forms: urlencoded bodies parsed by @fastify/formbody, where a field
 * sent twice arrives as an array and a field not sent is absent. Pages read text, never trust shape.
 */
import type { FastifyRequest } from 'fastify';
import type { FieldErrors } from '../../shared/errors.js';
import { AppError } from '../../shared/errors.js';

/** The text of a form field (the first value when sent several times), '' when absent. */
export function formText(body: unknown, name: string): string {
  if (!body || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A query string parameter as text ('' when absent). */
export function queryText(request: FastifyRequest, name: string): string {
  return formText(request.query, name);
}

/** What a form that failed shows again: its errors by field and the values typed (never passwords). */
export interface FormFailure {
  errors: FieldErrors;
  /** The message when no field carries the error. */
  message?: string | undefined;
}

/**
 * The field errors of a 422 (to show beside the fields); any other error is thrown on to the
 * error page of the web scope.
 */
export function formFailure(error: unknown): FormFailure {
  if (error instanceof AppError && error.code === 'validation_failed') return { errors: error.errors ?? {}, message: error.message };
  throw error;
}
