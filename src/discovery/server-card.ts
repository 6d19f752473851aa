// The MCP server card, generated from the same tool definitions the server registers.
import { listedTools } from '../mcp/tool-definitions.js';
import { PROTOCOL_VERSION } from '../mcp/server.js';

/** Spec "Versioning": server card 1.0.3 (address patterns, evaluate_trade_paid, decimals, slippage 10000). */
export const SERVER_CARD_VERSION = '1.0.3';

export function serverCard(baseUrl: string, name: string): Record<string, unknown> {
  return {
    name,
    version: SERVER_CARD_VERSION,
    description: 'Pre-trade risk guardrail for autonomous trading agents on Robinhood Chain: evaluate a trade before executing it.',
    protocolVersion: PROTOCOL_VERSION,
    transport: { type: 'streamable-http', url: `${baseUrl}/mcp-http/mcp` },
    authentication: { required: false },
    capabilities: { logging: {}, tools: { listChanged: false }, resources: null, prompts: null },
    tools: listedTools(),
  };
}
