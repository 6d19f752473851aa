// /mcp-http/mcp: the streamable-HTTP MCP endpoint, adapted from plain requests to the SDK's web transport.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { PATHS } from '../catalogue/published-facts.js';
import { json, methodNotAllowed } from '../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../http/types.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { McpSessions, SessionLimits } from './sessions.js';

const MCP_PATH = PATHS.mcp;

export interface McpRouteDeps {
  sessions: McpSessions;
  limiter: RateLimiter;
  limits: SessionLimits;
}

export function mcpRoutes(deps: McpRouteDeps): Route[] {
  const handle = (request: PlainRequest) => limited(deps, request);
  return [
    { method: 'post', pattern: MCP_PATH, readsBody: true, handler: handle },
    { method: 'delete', pattern: MCP_PATH, handler: handle },
    // No server-initiated stream: the transport answers POSTs with JSON (MCP lets a server refuse GET with 405).
    { method: 'get', pattern: MCP_PATH, handler: () => methodNotAllowed(['POST', 'DELETE']) },
  ];
}

async function limited(deps: McpRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  return (await deps.limiter.checkIp('mcp', request.ip)) ?? route(deps, request);
}

function rpcError(status: number, code: number, message: string, headers?: Record<string, string>): PlainResponse {
  return json(status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

async function route(deps: McpRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const id = request.headers['mcp-session-id'];
  if (id !== undefined) {
    const session = deps.sessions.use(id);
    if (!session) return rpcError(404, -32001, 'Session not found or expired; initialize a new session');
    return forward(session.transport, request);
  }
  if (request.method !== 'POST') return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  if (deps.sessions.countFor(request.ip) >= deps.limits.perIp) {
    return rpcError(429, -32000, `Too many MCP sessions for this client (at most ${deps.limits.perIp}); end one with DELETE`, {
      'retry-after': String(Math.ceil(deps.limits.idleMs / 1000)),
    });
  }
  const { transport, server } = await deps.sessions.start(request.ip);
  const response = await forward(transport, request);
  // Anything but a successful initialize leaves no session behind.
  if (transport.sessionId === undefined) await server.close().catch(() => undefined);
  return response;
}

async function forward(transport: WebStandardStreamableHTTPServerTransport, request: PlainRequest): Promise<PlainResponse> {
  // The edge has the whole body already: hand the transport the parsed JSON instead of a body
  // stream for it to read back (the SDK takes `parsedBody`); JSON it cannot parse goes as bytes,
  // so the transport answers it in its own words.
  const parsed = parseBody(request.body);
  const web = new Request(`http://${request.headers.host ?? 'localhost'}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: parsed === undefined && request.body && request.body.length > 0 ? (request.body as unknown as BodyInit) : undefined,
  });
  const response = await transport.handleRequest(web, parsed === undefined ? undefined : { parsedBody: parsed });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? 'application/json';
  return { status: response.status, headers, raw: { contentType, text } };
}

/** The body as JSON, or undefined when there is none or it does not parse. */
function parseBody(body: Buffer | null): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
