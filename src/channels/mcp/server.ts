// One MCP protocol server per session, built on the SDK's low-level Server with our JSON Schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { callTool, type McpToolDeps, type ToolHandlers } from './tool-handlers.js';
import { resultJson } from './tool-results.js';
import { listedTools } from '../../schemas/mcp-tools.js';
import { VERSIONS } from '../../catalogue/published-facts.js';

/** Spec "Versioning": the MCP protocol version; older versions a client asks for are honored. */
const PROTOCOL_VERSION = VERSIONS.mcpProtocol;
const OLDER_VERSIONS = new Set(['2025-03-26', '2024-11-05']);

export interface ServerIdentity {
  name: string;
  version: string;
}

/** One session's SDK server over the tools' handlers, which every session shares. */
export function createMcpServer(identity: ServerIdentity, handlers: ToolHandlers, log: McpToolDeps['log']): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    {
      capabilities: { logging: {}, tools: { listChanged: false } },
      instructions:
        'Call get_supported_assets to resolve symbols, then evaluate_trade before every trade. deny or an error means do not trade.',
    },
  );
  const tools = listedTools();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(handlers, request.params.name, request.params.arguments, log));
  return server;
}

/** A tools/call request's result as JSON text, answered without the SDK server; undefined for a request it does not take. */
export type DirectToolCall = (request: JSONRPCRequest) => Promise<string> | undefined;

/**
 * The plain tools/call, answered as the server's own handler answers it (callTool with the same
 * handlers), without the SDK's Protocol: its zod parses of the request and of the result, and
 * its per-request bookkeeping, were about a fifth of an MCP call's event loop (issue 30). Taken
 * only when the SDK would do nothing else: params with a name and, if any, arguments that are an
 * object, and no `_meta` (progress) or `task` (task-augmented execution). Anything else, and
 * every other method, goes to the SDK server (json-transport.ts).
 */
export function directToolCall(handlers: ToolHandlers, log: McpToolDeps['log']): DirectToolCall {
  return (request) => {
    if (request.method !== 'tools/call') return undefined;
    const params = request.params as Record<string, unknown> | undefined;
    if (params === undefined || typeof params.name !== 'string' || '_meta' in params || 'task' in params) return undefined;
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return undefined;
    return callTool(handlers, params.name, args, log).then(resultJson);
  };
}

/**
 * The version the SDK server is told an initialize asks for: the asked one when this service
 * speaks it, else 2025-06-18. The server answers what it is told (when the SDK knows it), so a
 * client asking 2025-11-25 or a future version is answered 2025-06-18 and an older one keeps its own.
 *
 * Why the transport applies this (json-transport.ts) rather than the server: SDK 1.32.2 has no
 * supported way to choose the answered version. Server's constructor registers its private
 * `_oninitialize` (node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js:52, declared
 * `private` in server/index.d.ts:117), which answers the asked version when it is in
 * SUPPORTED_PROTOCOL_VERSIONS and LATEST_PROTOCOL_VERSION, 2025-11-25, otherwise
 * (server/index.js:259-270, constants in types.js:2-4). ServerOptions (server/index.d.ts:7-46)
 * and ProtocolOptions (shared/protocol.d.ts:14-53) take no version list (upstream's
 * `supportedProtocolVersions` option, typescript-sdk pull request 1448, is not in this version).
 * Replacing the initialize handler would mean calling the private method (what this file did
 * before) or rebuilding its result without the client's capabilities it records. The transport
 * is ours and hands the server every message, so rewriting the asked version there uses only
 * public interfaces.
 */
export function offeredProtocolVersion(asked: string): string {
  return OLDER_VERSIONS.has(asked) ? asked : PROTOCOL_VERSION;
}
