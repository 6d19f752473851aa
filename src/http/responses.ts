// Response builders and the service's non-validation error catalogue (codes, statuses, texts).
import type { PlainResponse } from './types.js';
import type { ValidationIssue } from '../schemas/validator.js';

export function json(status: number, body: unknown, headers?: Record<string, string>): PlainResponse {
  return headers ? { status, body, headers } : { status, body };
}

/** FastAPI's HTTPValidationError: HTTP 422 with `detail` entries. */
export function validationFailed(detail: ValidationIssue[]): PlainResponse {
  return { status: 422, body: { detail } };
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
  return json(404, { detail: 'Not Found' });
}

export function methodNotAllowed(allowed: string[]): PlainResponse {
  return json(405, { detail: 'Method Not Allowed' }, { allow: allowed.join(', ') });
}

export function payloadTooLarge(limit: number): PlainResponse {
  return json(413, { detail: `Request body exceeds the limit of ${limit} bytes` });
}

/** 429 with Retry-After in whole seconds (at least 1), as RFC 9110 section 10.2.3 writes it. */
export function tooManyRequests(retryAfterMs: number, limit: number, windowMs: number): PlainResponse {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return json(
    429,
    { detail: `Rate limit exceeded: ${limit} requests per ${windowMs / 1000} seconds; retry after ${seconds} s` },
    {
      'retry-after': String(seconds),
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-window': String(windowMs / 1000),
    },
  );
}

export function serviceUnavailable(detail: string): PlainResponse {
  return json(503, { detail });
}

/** A request the edge refuses to interpret (conflicting framing headers); the connection is closed. */
export function badRequest(detail: string): PlainResponse {
  return json(400, { detail });
}

export function uriTooLong(limit: number): PlainResponse {
  return json(414, { detail: `Request target exceeds the limit of ${limit} bytes` });
}

export function internalError(): PlainResponse {
  return json(500, { detail: 'Internal Server Error' });
}
