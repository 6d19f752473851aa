// GET /api/v1/assets: the official registry as AssetInfo entries.
import { PATHS } from '../../catalogue/published-facts.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { Registry } from '../../facts/registry/registry.js';

export function assetRoutes(registry: Registry): Route[] {
  // The registry is fixed for the life of the process, so the body is built once.
  const body = registry.assets.map((asset) => ({
    symbol: asset.symbol,
    contract_address: asset.contract_address,
    is_native: asset.is_native,
    decimals: asset.decimals,
  }));
  return [{ method: 'get', pattern: PATHS.assets, handler: () => json(200, body) }];
}
