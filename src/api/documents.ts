// Public documents: the risk methodology and the MCP server card, rendered once at start-up.
import type { Config } from '../config.js';
import { renderMethodology } from '../discovery/methodology.js';
import { serverCard } from '../discovery/server-card.js';
import { json } from '../http/responses.js';
import type { Route } from '../http/types.js';

const CARD_PATHS = ['/.well-known/mcp-server-card.json', '/.well-known/mcp/server-card.json', '/.well-known/mcp.json'];

export function documentRoutes(config: Readonly<Config>, baseUrl: string, name: string): Route[] {
  const methodology = renderMethodology(config);
  const card = serverCard(baseUrl, name);
  return [
    ...CARD_PATHS.map((pattern): Route => ({ method: 'get', pattern, handler: () => json(200, card) })),
    {
      method: 'get',
      pattern: '/.well-known/methodology.md',
      handler: () => ({ status: 200, raw: { contentType: 'text/markdown; charset=utf-8', text: methodology } }),
    },
  ];
}
