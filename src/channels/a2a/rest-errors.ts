// A2A's HTTP+JSON errors: the SDK's google.rpc.Status body, at the catalogue's HTTP status when the error carries a catalogue code.
import { toLegacyHTTPError } from '@a2a-js/sdk/compat/v0_3/server';
import { A2AError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { ERRORS, type ErrorCode } from '../../catalogue/errors.js';
import type { PlainResponse } from '../../http/types.js';
import { withErrorData } from './legacy-errors.js';

/** google.rpc.Code names for the statuses a refusal takes from the catalogue (AIP-193's mapping). */
const STATUS_NAMES: Record<number, string> = {
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The reason of an A2AError that is none of the protocol's own errors (they each name theirs). */
const PLAIN_REASON = 'INTERNAL_ERROR';
/** What a bug's 500 says, without its words. */
const INTERNAL_WORDS = 'internal error; the evaluation produced no answer, do not trade';

/**
 * The error a REST client reads. An A2A error of the protocol (malformed request, task not found,
 * unsupported operation) keeps the binding's status, as the SDK's Express handler answers it; a
 * refusal of ours (no verdict: a dead chain node, a full wallet window) is a plain A2AError with
 * the catalogue `code` in its metadata, and takes that code's status (503, 429 with Retry-After)
 * where the SDK would say 500. Either way `details[0]` is the ErrorInfo whose metadata carries
 * `code`, `detail` and `retry_after_seconds`, as the JSON-RPC binding's `data[0]` does
 * (ARCHITECTURE.md "A2A channel"). Anything else is a bug, answered 500 without its words.
 */
export function restError(error: unknown): PlainResponse {
  if (!(error instanceof A2AError)) {
    const status = 500;
    return { status, body: toRestErrorBody(new A2AError({ message: INTERNAL_WORDS }), status) };
  }
  const catalogued = error.reason === PLAIN_REASON ? catalogueCode(error) : undefined;
  const status = catalogued ? ERRORS[catalogued].status : restStatusFor(error);
  const body = toRestErrorBody(error, status);
  if (catalogued && STATUS_NAMES[status]) body.error.status = STATUS_NAMES[status];
  const retryAfter = error.metadata?.retry_after_seconds;
  return retryAfter ? { status, body, headers: { 'retry-after': retryAfter } } : { status, body };
}

/**
 * The same error for a 0.3 client: the same HTTP status, and the 0.3 binding's body, `{code,
 * message, data}` with the JSON-RPC 0.3 code, whose `data` carries `code`, `detail` and
 * `retry_after_seconds` as the 0.3 JSON-RPC errors' does (legacy-errors.ts).
 */
export function legacyRestError(error: unknown): PlainResponse {
  const { status, headers } = restError(error);
  const body = error instanceof A2AError ? toLegacyHTTPError(withErrorData(error)) : toLegacyHTTPError(new A2AError({ message: INTERNAL_WORDS }));
  return headers ? { status, body, headers } : { status, body };
}

function catalogueCode(error: A2AError): ErrorCode | undefined {
  const code = error.metadata?.code;
  return code !== undefined && Object.hasOwn(ERRORS, code) ? (code as ErrorCode) : undefined;
}
