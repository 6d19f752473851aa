// The MCP row: `tools/call evaluate_trade` on sessions opened beforehand, as many as there are connections.
import { MCP_ACCEPT, MCP_PROTOCOL_VERSION, type LoadPlan } from './load-plan.js';
import { mcpVerdict, type Scenario, type Subject } from './measure.js';

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  const session = response.headers.get('mcp-session-id');
  await response.text();
  if (!session) throw new Error(`MCP initialize failed with ${response.status}`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, 'mcp-session-id': session, 'mcp-protocol-version': MCP_PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return session;
}

/**
 * `rest` is the offline REST row's plan: the same trades, wrapped as tools/call. The service must
 * allow `connections` sessions from one address (MCP_SESSIONS_PER_IP).
 */
export async function mcpScenario(rest: LoadPlan, url: string, subject: Subject, connections: number, generator: 'wrk' | 'autocannon'): Promise<Scenario> {
  const sessions = await Promise.all(Array.from({ length: connections }, () => openSession(url)));
  const rotation = sessions.map((value) => ({ wallet: null, header: 'mcp-session-id', value }));
  // A fleet of its own, past the REST rows' wallets, warmed as theirs is.
  const plan: LoadPlan = { ...rest, url, walletOffset: 100_000_001, mcp: true, rotation };
  return {
    id: 'mcp',
    label: 'MCP tools/call evaluate_trade, offline',
    // wrk cannot keep a session per connection (see analyze.lua): there it changes per request.
    note: generator === 'wrk' ? `${connections} sessions, one per request in turn` : `${connections} sessions, one per connection`,
    plan,
    warmUp: { plan, requests: Math.max(plan.walletCycle, 1_000) },
    subject,
    check: mcpVerdict,
  };
}
