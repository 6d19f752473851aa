// Public documents: the risk methodology and the MCP server card, rendered once at start-up.
import { PATHS } from '../catalogue/published-facts.js';
import type { Config } from '../config.js';
import { renderMethodology } from '../discovery/methodology.js';
import { serverCard } from '../discovery/server-card.js';
import { json } from '../http/responses.js';
import type { Route } from '../http/types.js';

export function documentRoutes(config: Readonly<Config>, baseUrl: string): Route[] {
  const methodology = renderMethodology(config);
  const card = serverCard(baseUrl);
  return [
    ...PATHS.mcpServerCard.map((pattern): Route => ({ method: 'get', pattern, handler: () => json(200, card) })),
    {
      method: 'get',
      pattern: PATHS.methodology,
      handler: () => ({ status: 200, raw: { contentType: 'text/markdown; charset=utf-8', text: methodology } }),
    },
  ];
}
