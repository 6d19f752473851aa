// One MCP protocol server per session, built on the SDK's low-level Server with our JSON Schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, toolHandlers, type McpToolDeps } from './tool-handlers.js';
import { listedTools } from './tool-definitions.js';
import { VERSIONS } from '../catalogue/published-facts.js';

/** Spec "Versioning": the MCP protocol version; older versions a client asks for are honored. */
const PROTOCOL_VERSION = VERSIONS.mcpProtocol;
const OLDER_VERSIONS = new Set(['2025-03-26', '2024-11-05']);

export interface ServerIdentity {
  name: string;
  version: string;
}

export function createMcpServer(identity: ServerIdentity, deps: McpToolDeps): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    {
      capabilities: { logging: {}, tools: { listChanged: false } },
      instructions:
        'Call get_supported_assets to resolve symbols, then evaluate_trade before every trade. deny or an error means do not trade.',
    },
  );
  const tools = listedTools();
  const handlers = toolHandlers(deps);
  pinProtocolVersion(server);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(handlers, request.params.name, request.params.arguments, deps.log));
  return server;
}

/**
 * The SDK answers a client with the newest version both know; this service speaks
 * 2025-06-18, so a newer request is answered with it (older ones are kept).
 */
function pinProtocolVersion(server: Server): void {
  const initialize = (server as unknown as { _oninitialize: (request: unknown) => Promise<unknown> })._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, (request) => {
    const asked = request.params.protocolVersion;
    const protocolVersion = OLDER_VERSIONS.has(asked) ? asked : PROTOCOL_VERSION;
    return initialize({ ...request, params: { ...request.params, protocolVersion } }) as never;
  });
}
