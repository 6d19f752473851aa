// The AI catalog (`specVersion` 1.0 draft): the MCP server and the A2A agent as entries pointing at their cards.
import { PATHS, SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { mcpEndpoint, provider, toolSummaries } from './directory-entry.js';
import { documentLinks } from './public-documents.js';

const TAGS = ['trading', 'risk', 'pre-trade', 'guardrail', 'robinhood-chain', 'audit'];

export function aiCatalog(baseUrl: string): Record<string, unknown> {
  // Entries are named by URN under the public host, so two deployments never share an identifier.
  const urn = (kind: string) => `urn:air:${new URL(baseUrl).hostname}:${kind}:${SERVICE.name}`;
  const tools = toolSummaries();
  return {
    specVersion: '1.0',
    host: { displayName: SERVICE.name, identifier: new URL(baseUrl).host, documentationUrl: `${baseUrl}${PATHS.llmsTxt}` },
    entries: [
      {
        identifier: urn('mcp'),
        displayName: `${SERVICE.name} MCP server`,
        type: 'application/mcp-server-card+json',
        url: `${baseUrl}${PATHS.mcpServerCard[0]}`,
        description: SERVICE.description,
        version: VERSIONS.service,
        tags: TAGS,
        capabilities: tools.map((tool) => tool.name),
        endpoint: mcpEndpoint(baseUrl),
        tools,
      },
      {
        identifier: urn('a2a'),
        displayName: `${SERVICE.name} agent`,
        type: 'application/a2a-agent-card+json',
        url: `${baseUrl}${PATHS.agentCard[0]}`,
        description: SERVICE.description,
        version: VERSIONS.service,
        tags: TAGS,
      },
    ],
    name: SERVICE.name,
    description: SERVICE.description,
    provider: provider(baseUrl),
    license: SERVICE.license,
    links: documentLinks(baseUrl),
  };
}
