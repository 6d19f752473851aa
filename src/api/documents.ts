// Public documents: the risk methodology, rendered once at start-up.
import type { Config } from '../config.js';
import { renderMethodology } from '../discovery/methodology.js';
import type { Route } from '../http/types.js';

export function documentRoutes(config: Readonly<Config>): Route[] {
  const methodology = renderMethodology(config);
  return [
    {
      method: 'get',
      pattern: '/.well-known/methodology.md',
      handler: () => ({ status: 200, raw: { contentType: 'text/markdown; charset=utf-8', text: methodology } }),
    },
  ];
}
