// REST response builders: every error body is `{detail, code}` from the error catalogue (422: the FastAPI list).
import { ERRORS, errorBody, type ErrorCode } from '../catalogue/errors.js';
import type { PlainResponse } from './types.js';
import type { ValidationIssue } from '../schemas/validator.js';

export function json(status: number, body: unknown, headers?: Record<string, string>): PlainResponse {
  return headers ? { status, body, headers } : { status, body };
}

/** A catalogued error at its status; `detail` replaces the catalogue's words when the answer knows more. */
export function errorResponse(code: ErrorCode, detail?: string, headers?: Record<string, string>, extra?: Record<string, unknown>): PlainResponse {
  return json(ERRORS[code].status, errorBody(code, detail, extra), headers);
}

/** FastAPI's HTTPValidationError: HTTP 422 with `detail` entries, plus the catalogue's code. */
export function validationFailed(detail: ValidationIssue[], code: ErrorCode = 'validation_failed'): PlainResponse {
  return { status: 422, body: { detail, code } };
}

export function jsonInvalid(position: number, error: string): PlainResponse {
  return validationFailed([
    { loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error } },
  ]);
}

/** FastAPI's shape for a body that is required but absent. */
export function bodyMissing(): PlainResponse {
  return validationFailed([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
}

export function notFound(): PlainResponse {
  return errorResponse('not_found');
}

export function methodNotAllowed(allowed: string[]): PlainResponse {
  return errorResponse('method_not_allowed', undefined, { allow: allowed.join(', ') });
}

export function payloadTooLarge(limit: number): PlainResponse {
  return errorResponse('body_too_large', `Request body exceeds the limit of ${limit} bytes`);
}

/** 429 with Retry-After in whole seconds (at least 1), as RFC 9110 section 10.2.3 writes it. */
export function tooManyRequests(retryAfterMs: number, limit: number, windowMs: number): PlainResponse {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return errorResponse(
    'rate_limited',
    `Rate limit exceeded: ${limit} requests per ${windowMs / 1000} seconds; retry after ${seconds} s`,
    {
      'retry-after': String(seconds),
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-window': String(windowMs / 1000),
    },
  );
}

/** Two different Content-Length values; the edge closes the connection after it. */
export function conflictingContentLength(): PlainResponse {
  return errorResponse('conflicting_content_length');
}

export function uriTooLong(limit: number): PlainResponse {
  return errorResponse('uri_too_long', `Request target exceeds the limit of ${limit} bytes`);
}

export function internalError(): PlainResponse {
  return errorResponse('internal_error');
}

/** A request that arrived after the service began to stop: retry shortly, elsewhere or after the restart. */
export function serviceStopping(): PlainResponse {
  return errorResponse('service_stopping', undefined, { 'retry-after': '1' });
}
