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
    const parsed = JSONRPCMessageSchema.safeParse(each);
    if (!parsed.success) return { fault: rpcFault('invalidMessage') };
    messages.push(parsed.data);
  }
  return { messages };
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
