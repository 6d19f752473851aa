// The MCP endpoint's HTTP-level faults: status, JSON-RPC code and message, as a JSON-RPC error with a null id.
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { json } from '../../http/responses.js';
import type { PlainResponse } from '../../http/types.js';

/**
 * Word for word what the SDK's WebStandardStreamableHTTPServerTransport answers
 * (node_modules/@modelcontextprotocol/sdk/dist/esm/server/webStandardStreamableHttp.js),
 * since clients written against it match on the status, the code and sometimes the text.
 * The first three are the endpoint's own (session table, per-IP and service-wide caps).
 */
const FAULTS = {
  sessionExpired: [404, -32001, 'Session not found or expired; initialize a new session'],
  sessionRequired: [400, -32000, 'Bad Request: Mcp-Session-Id header is required'],
  tooManySessions: [429, -32000, 'Too many MCP sessions for this client'],
  sessionNotFound: [404, -32001, 'Session not found'],
  notInitialized: [400, -32000, 'Bad Request: Server not initialized'],
  notAcceptable: [406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'],
  unsupportedMediaType: [415, -32000, 'Unsupported Media Type: Content-Type must be application/json'],
  invalidJson: [400, -32700, 'Parse error: Invalid JSON'],
  invalidMessage: [400, -32700, 'Parse error: Invalid JSON-RPC message'],
  batchTooLarge: [400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`],
  alreadyInitialized: [400, -32600, 'Invalid Request: Server already initialized'],
  oneInitialize: [400, -32600, 'Invalid Request: Only one initialization request is allowed'],
  unsupportedVersion: [400, -32000, 'Bad Request: Unsupported protocol version'],
  dispatchFailed: [400, -32700, 'Parse error'],
} as const satisfies Record<string, readonly [number, number, string]>;

export type RpcFault = keyof typeof FAULTS;

export interface FaultOptions {
  /** Replaces the catalogue's message when the answer knows more (a version, a limit). */
  message?: string;
  data?: unknown;
  headers?: Record<string, string>;
}

export function rpcFault(fault: RpcFault, options: FaultOptions = {}): PlainResponse {
  const [status, code, text] = FAULTS[fault];
  const error: { code: number; message: string; data?: unknown } = { code, message: options.message ?? text };
  if (options.data !== undefined) error.data = options.data;
  return json(status, { jsonrpc: '2.0', error, id: null }, options.headers);
}

/** The SDK's 400 for an MCP-Protocol-Version header it does not know, naming the ones it does. */
export function unsupportedVersion(asked: string): PlainResponse {
  const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
  return rpcFault('unsupportedVersion', {
    message: `Bad Request: Unsupported protocol version: ${asked} (supported versions: ${supported})`,
  });
}
