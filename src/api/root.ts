// GET /: service information and links to the documents an agent or operator needs.
import { json } from '../http/responses.js';
import type { Route } from '../http/types.js';

export interface ServiceInfo {
  name: string;
  version: string;
  chainId: number;
  store: 'memory' | 'redis';
}

export function rootRoutes(info: ServiceInfo): Route[] {
  const body = {
    name: info.name,
    version: info.version,
    description: 'Pre-trade risk guardrail for autonomous trading agents: allow, warn or deny with reasons, a risk score, a price and a hash-chained audit record.',
    chain: { id: info.chainId, caip2: `eip155:${info.chainId}`, name: 'Robinhood Chain' },
    store: info.store,
    links: {
      assets: '/api/v1/assets',
      analyze_free: '/api/v1/analyze/free',
      demo_analyze: '/api/v1/demo/analyze',
      health: '/healthz',
      methodology: '/.well-known/methodology.md',
    },
  };
  return [{ method: 'get', pattern: '/', handler: () => json(200, body) }];
}
