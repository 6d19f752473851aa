// Directory metadata in the shape MCP directories such as Glama read: identity, MCP endpoint, tools, license, links.
import { SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { mcpEndpoint, provider, toolSummaries } from './directory-entry.js';
import { documentLinks } from './public-documents.js';

export function glamaMetadata(baseUrl: string): Record<string, unknown> {
  return {
    name: SERVICE.name,
    version: VERSIONS.service,
    api_version: VERSIONS.api,
    description: SERVICE.description,
    mcp: mcpEndpoint(baseUrl),
    tools: toolSummaries(),
    provider: provider(baseUrl),
    license: SERVICE.license,
    links: { homepage: baseUrl, ...documentLinks(baseUrl) },
  };
}
