// /mcp-http/mcp: the streamable-HTTP MCP endpoint, plain requests handed to the session's own transport
// (its routes are on-demand.ts's).
import type { PlainRequest, PlainResponse } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { rpcFault } from './rpc-faults.js';
import type { McpSessions, SessionLimits } from './sessions.js';

export interface McpRouteDeps {
  sessions: McpSessions;
  limiter: RateLimiter;
  limits: SessionLimits;
}

/** The handler of the endpoint's POST and DELETE. */
export function mcpHandler(deps: McpRouteDeps): (request: PlainRequest) => Promise<PlainResponse> {
  return (request) => limited(deps, request);
}

function limited(deps: McpRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  return deps.limiter.guard('mcp', request.ip, () => route(deps, request));
}

async function route(deps: McpRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const id = request.headers['mcp-session-id'];
  if (id !== undefined) {
    // Another address with this id is told what an unknown id is told (docs/mcp.md).
    const session = deps.sessions.use(id, request.ip);
    if (!session) return rpcFault('sessionExpired');
    return session.transport.handle(request);
  }
  if (request.method !== 'POST') return rpcFault('sessionRequired');
  const full = sessionsFull(deps, request.ip);
  if (full) return full;
  const { transport, server, done } = await deps.sessions.start(request.ip);
  try {
    const response = await transport.handle(request);
    // Anything but a successful initialize leaves no session behind.
    if (transport.sessionId === undefined) await server.close().catch(() => undefined);
    return response;
  } finally {
    done();
  }
}

/**
 * The 429 for a client at its own cap, or for one that already holds as many sessions as any other
 * address while the service holds its cap; anyone else gets a place by closing another's (docs/mcp.md).
 */
function sessionsFull(deps: McpRouteDeps, ip: string): PlainResponse | null {
  if (deps.sessions.countFor(ip) >= deps.limits.perIp) {
    return rpcFault('tooManySessions', {
      message: `Too many MCP sessions for this client (at most ${deps.limits.perIp}); end one with DELETE`,
      headers: { 'retry-after': String(Math.ceil(deps.limits.idleMs / 1000)) },
    });
  }
  if (deps.sessions.total() >= deps.limits.max && !deps.sessions.makeRoomFor(ip)) {
    // The earliest a session frees by idling out; a DELETE anywhere may free one sooner.
    const seconds = Math.max(1, Math.ceil(deps.sessions.msUntilOneFrees() / 1000));
    return rpcFault('tooManySessions', {
      message: `Too many MCP sessions on this service (at most ${deps.limits.max}), and this client holds as many as any other; end one with DELETE or retry after ${seconds} s`,
      headers: { 'retry-after': String(seconds) },
    });
  }
  return null;
}
