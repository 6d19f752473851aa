// /a2a: the A2A JSON-RPC endpoint, plain requests handed to the SDK's transport handler for the version the client speaks.
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ContentTypeNotSupportedError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, STATE_HEADERS_KEY, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { PATHS } from '../../catalogue/published-facts.js';
import { json, methodNotAllowed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { shapeProblem } from '../../schemas/json-shape.js';
import { invalidInput } from './a2a-errors.js';
import { legacyHandler, withErrorData } from './legacy-errors.js';

export interface A2ARouteDeps {
  handler: A2ARequestHandler;
  limiter: RateLimiter;
}

/** JSON-RPC 2.0's parse error, which no A2A error type names. */
const PARSE_ERROR = -32700;
const UTF8 = new TextDecoder();

interface Transports {
  current: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

export function a2aRoutes(deps: A2ARouteDeps): Route[] {
  const transports: Transports = { current: new JsonRpcTransportHandler(deps.handler), legacy: new LegacyJsonRpcTransportHandler(legacyHandler(deps.handler)) };
  return [
    {
      method: 'post',
      pattern: PATHS.a2a,
      readsBody: true,
      // Per IP, as MCP is (docs/a2a.md): the evaluations behind it also count in the wallet's window.
      handler: (request) => deps.limiter.guard('a2a', request.ip, () => answer(transports, request)),
    },
    // JSON-RPC only: every method is a POST, and no stream is ever opened (capabilities.streaming is false).
    { method: 'get', pattern: PATHS.a2a, handler: () => methodNotAllowed(['POST']) },
  ];
}

/**
 * As the SDK's Express jsonRpcHandler with legacy support: A2A-Version 1.0 is the current
 * protocol; no header, or 0.3, is the 0.3 protocol the card's top-level fields describe. Every
 * answer is HTTP 200 with a JSON-RPC envelope, errors included, as that handler answers them.
 */
async function answer(transports: Transports, request: PlainRequest): Promise<PlainResponse> {
  const version = request.headers[A2A_VERSION_HEADER.toLowerCase()] || A2A_LEGACY_PROTOCOL_VERSION;
  const legacy = version === A2A_LEGACY_PROTOCOL_VERSION || version === '0.3.0';
  const mapError = legacy
    ? (error: unknown) => LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(withErrorData(error))
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const fail = (error: unknown) => json(200, { jsonrpc: '2.0', id: null, error: mapError(error) });
  if (!legacy && version !== '1.0') {
    return fail(new VersionNotSupportedError(`The requested A2A protocol version '${version}' is not supported. Supported versions: 1.0, 0.3`));
  }
  const contentType = request.headers['content-type'];
  if (contentType && contentType.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    return fail(new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json.`));
  }
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(request.body ?? new Uint8Array(0)));
  } catch {
    return json(200, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Invalid JSON payload.' } });
  }
  // Bounded before the SDK walks it, as a REST body is (ARCHITECTURE "Hostile input"): its
  // conversions recurse, and 5,000 levels of metadata overflowed the stack into a -32603.
  const unsound = shapeProblem(body, 'body');
  if (unsound) {
    return json(200, { jsonrpc: '2.0', id: requestId(body), error: mapError(invalidInput('invalid JSON-RPC request: see detail', [unsound])) });
  }
  const context = new ServerCallContext({ requestedVersion: version, state: new Map([[STATE_HEADERS_KEY, request.headers]]) });
  const handler = legacy ? transports.legacy : transports.current;
  const result = await handler.handle(body as Record<string, unknown>, context);
  if (!isStream(result)) return json(200, result);
  // Only the streaming methods return a stream, and ours fails at its first step (request-handler.ts).
  try {
    await result[Symbol.asyncIterator]().next();
  } catch (error) {
    return json(200, { jsonrpc: '2.0', id: requestId(body), error: mapError(error) });
  }
  return fail(new Error('streaming is not supported'));
}

function isStream(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}

function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
