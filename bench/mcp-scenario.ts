// MCP load: `tools/call evaluate_trade` over one session per connection, through the same autocannon harness.
import autocannon from 'autocannon';
import type { LoadResult } from './harness.js';
import { tradeFields } from './trade-body.js';

const ACCEPT = 'application/json, text/event-stream';

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  const session = response.headers.get('mcp-session-id');
  await response.text();
  if (!session) throw new Error(`initialize failed with ${response.status}`);
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return session;
}

export async function runMcpLoad(url: string, connections: number, seconds: number): Promise<LoadResult> {
  const sessions = await Promise.all(Array.from({ length: connections }, () => openSession(url)));
  let next = 0;
  let n = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request, state: object) => {
          const context = state as { session?: string };
          // One session per connection: the connection's context keeps the one it was given.
          context.session ??= sessions[next++ % sessions.length];
          const call = { jsonrpc: '2.0', id: ++n, method: 'tools/call', params: { name: 'evaluate_trade', arguments: tradeFields(n) } };
          return {
            ...request,
            headers: {
              'content-type': 'application/json', accept: ACCEPT,
              'mcp-session-id': String(context.session), 'mcp-protocol-version': '2025-06-18',
            },
            body: JSON.stringify(call),
          };
        },
      },
    ],
  });
  return {
    label: 'MCP tools/call evaluate_trade',
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
