// The MCP channel as one piece: its tools over the evaluation core, its sessions, and the endpoint's handler.
// Loaded by on-demand.ts at the first request to the endpoint (ARCHITECTURE.md "MCP channel loaded on demand").
import type { PlainRequest, PlainResponse } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { mcpHandler } from './http-endpoint.js';
import { createMcpServer, directToolCall, type ServerIdentity } from './server.js';
import { McpSessions, type SessionLimits } from './sessions.js';
import { toolHandlers, type McpToolDeps } from './tool-handlers.js';

export interface McpChannelDeps {
  tools: McpToolDeps;
  identity: ServerIdentity;
  limiter: RateLimiter;
  limits: SessionLimits;
  now: () => number;
}

export interface McpChannel {
  handle(request: PlainRequest): Promise<PlainResponse>;
  /** Closes every session (the service's stop). */
  close(): Promise<void>;
}

export function openMcpChannel(deps: McpChannelDeps): McpChannel {
  const tools = toolHandlers(deps.tools);
  const sessions = new McpSessions(deps.limits, () => createMcpServer(deps.identity, tools, deps.tools.log), deps.now, directToolCall(tools, deps.tools.log));
  return {
    handle: mcpHandler({ sessions, limiter: deps.limiter, limits: deps.limits }),
    close: () => sessions.closeAll(),
  };
}
