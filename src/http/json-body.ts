// Parses a JSON request body and validates it, answering 422 in FastAPI's shape on failure.
import { bodyMissing, jsonInvalid, validationFailed } from './responses.js';
import type { PlainRequest, PlainResponse } from './types.js';
import type { Validator } from '../schemas/validator.js';

export type BodyResult<T> = { ok: true; value: T } | { ok: false; response: PlainResponse };

export function parseJsonBody<T>(request: PlainRequest, validate: Validator<T>): BodyResult<T> {
  if (request.body === null || request.body.length === 0) return { ok: false, response: bodyMissing() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.toString('utf8'));
  } catch (error) {
    const message = (error as Error).message;
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    return { ok: false, response: jsonInvalid(position, message) };
  }
  const checked = validate(parsed);
  return checked.ok ? checked : { ok: false, response: validationFailed(checked.detail) };
}
