// What directory metadata says of the service: the MCP endpoint, the tools and who provides it.
import { PATHS, SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { TOOL_DEFINITIONS } from '../../schemas/mcp-tools.js';

export function mcpEndpoint(baseUrl: string) {
  return {
    url: `${baseUrl}${PATHS.mcp}`,
    transport: 'streamable-http' as const,
    protocolVersion: VERSIONS.mcpProtocol,
    authentication: { required: false },
  };
}

/** Name, title and description of each tool; the schemas are in the MCP server card. */
export function toolSummaries() {
  return TOOL_DEFINITIONS.map(({ name, title, description }) => ({ name, title, description }));
}

/** The deployment answers for itself: its public address is the provider's. */
export function provider(baseUrl: string) {
  return { name: SERVICE.name, url: baseUrl };
}
