// The registry listing every channel serves: REST's AssetInfo list, MCP's get_supported_assets, A2A's asset-registry skill.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSkill, type A2ASkillDeps } from '../../../../src/channels/a2a/skills.js';
import { supportedAssets } from '../../../../src/channels/mcp/capability-tools.js';
import { assetRoutes } from '../../../../src/channels/rest/assets.js';
import { A2A_SKILLS } from '../../../../src/catalogue/a2a-skills.js';
import { Registry } from '../../../../src/facts/registry/registry.js';
import type { PlainRequest } from '../../../../src/http/types.js';

const registry = new Registry(4663, [
  { symbol: 'TSLA', contract_address: '0x00000000000000000000000000000000000000a1', decimals: 18, is_native: false, price_feed: null, default_price_usd: 400 },
  { symbol: 'ETH', contract_address: '0x00000000000000000000000000000000000000e1', decimals: 18, is_native: true, price_feed: null, default_price_usd: null },
]);
const EXPECTED = [
  { symbol: 'TSLA', contract_address: '0x00000000000000000000000000000000000000a1', is_native: false, decimals: 18 },
  { symbol: 'ETH', contract_address: '0x00000000000000000000000000000000000000e1', is_native: true, decimals: 18 },
];

describe('registry listing', () => {
  it('is the same JSON text on REST, MCP and A2A, in the AssetInfo field order, without the feed or default price', async () => {
    const [route] = assetRoutes(registry);
    const rest = await route.handler({} as PlainRequest);
    const mcp = supportedAssets(registry);
    const a2a = await runSkill({ registry } as A2ASkillDeps, A2A_SKILLS.assets, {});
    const text = JSON.stringify(EXPECTED);
    assert.equal(JSON.stringify(rest.body), text);
    assert.equal(JSON.stringify((mcp.structuredContent as { assets: unknown }).assets), text);
    assert.equal(mcp.content[0].type === 'text' && mcp.content[0].text, JSON.stringify({ assets: EXPECTED }));
    assert.equal(JSON.stringify(a2a.data.assets), text);
  });
});
