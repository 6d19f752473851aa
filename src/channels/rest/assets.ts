// GET /api/v1/assets: the official registry as AssetInfo entries.
import { PATHS } from '../../catalogue/published-facts.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { Registry } from '../../facts/registry/registry.js';

export function assetRoutes(registry: Registry): Route[] {
  return [{ method: 'get', pattern: PATHS.assets, handler: () => json(200, registry.listing) }];
}
