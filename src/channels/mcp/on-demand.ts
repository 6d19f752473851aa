// /mcp-http/mcp's routes, registered at start, with the channel behind them loaded on the endpoint's first
// request: the MCP SDK and its zod schemas took about 0.4 s of CPU in every start, and a service no MCP client
// calls never needs them (ARCHITECTURE.md "MCP channel loaded on demand").
import { PATHS } from '../../catalogue/published-facts.js';
import { methodNotAllowed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { McpChannel, McpChannelDeps } from './channel.js';

export interface McpOnDemand {
  routes: Route[];
  /** Closes the channel's sessions, if it was ever opened. */
  close(): Promise<void>;
}

export function mcpOnDemand(deps: McpChannelDeps): McpOnDemand {
  let opened: Promise<McpChannel> | undefined;
  let channel: McpChannel | undefined;
  // Every request that arrives while the module loads waits on the same load.
  const open = () => (opened ??= import('./channel.js').then((module) => (channel = module.openMcpChannel(deps))));
  // Once open, a request goes straight to the channel, with no promise of this module's own.
  const handle = (request: PlainRequest): Promise<PlainResponse> =>
    channel !== undefined ? channel.handle(request) : open().then((loaded) => loaded.handle(request));
  return {
    routes: [
      { method: 'post', pattern: PATHS.mcp, readsBody: true, ownsContentType: true, handler: handle },
      { method: 'delete', pattern: PATHS.mcp, handler: handle },
      // No server-initiated stream: the transport answers POSTs with JSON (MCP lets a server refuse GET with 405).
      { method: 'get', pattern: PATHS.mcp, handler: () => methodNotAllowed(['POST', 'DELETE']) },
    ],
    close: async () => {
      if (opened) await (await opened).close();
    },
  };
}
