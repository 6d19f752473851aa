// What a POST to the MCP endpoint must be before its messages reach the server: its headers, its JSON, its JSON-RPC.
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  type InitializeRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { PlainResponse } from '../../http/types.js';
import { rpcFault } from './rpc-faults.js';

/**
 * The body as the SDK reads one (TextDecoder: UTF-8, a leading byte order mark dropped, bad bytes
 * replaced), with Buffer's decoder, which replaces bad bytes the same way at a fraction of the cost
 * per call; only the mark is dropped here.
 */
export function bodyText(body: Buffer | null): string {
  if (body === null) return '';
  const marked = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', marked ? 3 : 0);
}

/** Spec "Sending Messages to the Server": the client accepts both JSON and an event stream, and sends JSON. */
export function refuseHeaders(headers: Record<string, string>): PlainResponse | undefined {
  const accept = headers.accept;
  // Accept is a list, so a substring test is what the SDK does; Content-Type is parsed.
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return rpcFault('notAcceptable');
  if (!isJsonContentType(headers['content-type'])) return rpcFault('unsupportedMediaType');
  return undefined;
}

/**
 * The body as JSON-RPC messages, one or a batch, each checked against the SDK's own schema.
 * The edge's MAX_BODY_BYTES is the one size limit: the SDK's own 4 MiB applies only to a body
 * it reads itself, and this endpoint handed it bodies already parsed.
 */
export function readMessages(body: Buffer | null): { messages: JSONRPCMessage[] } | { fault: PlainResponse } {
  let raw: unknown;
  try {
    raw = JSON.parse(bodyText(body));
  } catch {
    return { fault: rpcFault('invalidJson') };
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) return { fault: rpcFault('batchTooLarge') };
  const messages: JSONRPCMessage[] = [];
  for (const each of Array.isArray(raw) ? raw : [raw]) {
    if (plainRequest(each)) {
      messages.push(each);
      continue;
    }
    const parsed = JSONRPCMessageSchema.safeParse(each);
    if (!parsed.success) return { fault: rpcFault('invalidMessage') };
    messages.push(parsed.data);
  }
  return { messages };
}

/**
 * A request JSONRPCMessageSchema accepts as it is, checked by hand: jsonrpc "2.0", an id that is a
 * string or a whole number, a method, and params, if any, an object without `_meta` (the one
 * member of a request's params the schema looks into, which it keeps whole). Nothing else may be
 * there. The schema's copy of such a request equals the request, so it is taken without one; a
 * property test holds the two alike (issue 30: the union parse was a tenth of an MCP call's
 * transport work). Any other message goes through the schema.
 */
export function plainRequest(value: unknown): value is JSONRPCRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  for (const key in message) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (!('params' in message)) return true;
  return typeof params === 'object' && params !== null && !Array.isArray(params) && !('_meta' in params);
}

/**
 * Of messages that passed JSONRPCMessageSchema, the requests: the only ones with both `id` and
 * `method` (notifications and responses are strict objects without one or the other), so this
 * answers as the SDK's isJSONRPCRequest would without parsing the message again.
 */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'id' in message && 'method' in message;
}

/** The SDK's isInitializeRequest, asked only of messages whose method says initialize. */
export function isInitialize(message: JSONRPCMessage): message is JSONRPCRequest & InitializeRequest {
  return 'method' in message && message.method === 'initialize' && isInitializeRequest(message);
}
