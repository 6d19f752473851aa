// What both versions of the HTTP+JSON binding read from a request: its JSON body, bounded, and a task route's verb.
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { PlainRequest, PlainResponse } from '../../http/types.js';
import { shapeProblem } from '../../schemas/json-shape.js';
import { invalidInput } from './a2a-errors.js';

/** One route's work at one protocol version, once the version and content type are checked. */
export type Operation = (request: PlainRequest, context: ServerCallContext) => Promise<PlainResponse>;

const UTF8 = new TextDecoder();

/**
 * The JSON body, bounded before the SDK's codecs walk it as a REST body is (ARCHITECTURE.md
 * "Hostile input"): they recurse, and metadata nested 5,000 levels would overflow the stack.
 */
export function readBody(request: PlainRequest): unknown {
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(request.body ?? new Uint8Array(0)));
  } catch {
    throw new RequestMalformedError('Invalid JSON payload.');
  }
  const unsound = shapeProblem(body, 'body');
  if (unsound) throw invalidInput('invalid HTTP+JSON request: see detail', [unsound]);
  return body;
}

/** `{id}:{verb}` of a task route's last segment; a task id holds no colon (ours are UUIDs). */
export function splitVerb(segment: string): [string, string | undefined] {
  const colon = segment.lastIndexOf(':');
  return colon < 0 ? [segment, undefined] : [segment.slice(0, colon), segment.slice(colon + 1)];
}
