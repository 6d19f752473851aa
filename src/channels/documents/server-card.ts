// The MCP server card, generated from the same tool definitions the server registers.
import { PATHS, SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { listedTools } from '../../schemas/mcp-tools.js';

export function serverCard(baseUrl: string): Record<string, unknown> {
  return {
    name: SERVICE.name,
    version: VERSIONS.api,
    description: SERVICE.description,
    protocolVersion: VERSIONS.mcpProtocol,
    transport: { type: 'streamable-http', url: `${baseUrl}${PATHS.mcp}` },
    authentication: { required: false },
    capabilities: { logging: {}, tools: { listChanged: false }, resources: null, prompts: null },
    tools: listedTools(),
  };
}
