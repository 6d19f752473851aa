// Price impact through the running service on the devnet: a trade on the concentrated SPY pool judged against the
// caller's max_slippage_bps, the same on MCP, the pool state in the recorded facts re-deriving it, the
// counterfactual amount within the tolerance, and no permit beyond it (ARCHITECTURE.md "Price impact").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseAbi, type Address, type Hex } from 'viem';
import { unitsAtLeast } from '../../../src/risk/amount-grid.js';
import { isAdvisory } from '../../../src/risk/reason-codes.js';
import { quoteImpact } from '../../../src/risk/price-impact.js';
import type { VenuePoolFact } from '../../../src/risk/types.js';
import type { Devnet } from '../../../src/tools/devnet/devnet.js';
import { runAuditReplay, EXIT_REPRODUCED } from '../../../src/tools/cli/audit-replay-command.js';
import { publicClientFor } from '../../support/devnet-helpers.js';
import { callMcpTool } from '../../support/mcp-client.js';
import { postJson, startTestService, type TestService } from '../../support/service.js';

const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
]);

let running: TestService;
let devnet: Devnet;
let walletSeq = 0;
const freshWallet = () => `0x${(0x1b9a000 + walletSeq++).toString(16).padStart(40, '0')}`;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMITS: 'off' });
  devnet = running.service.chain.devnet!;
});
after(() => running.stop());

/** 6 SPY at about 601 USD: 3,607 USD, under Tier 1's ceiling and clear of its near-ceiling share. */
function spyBuy(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { wallet: freshWallet(), asset: 'SPY', contract_address: devnet.pools.SPY!.token, side: 'buy', amount: 6, ...overrides };
}

const analyze = async (body: Record<string, unknown>) => {
  const answer = await postJson(`${running.base}/api/v1/analyze/free`, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json;
};

/** The venue document the record's facts name: the pool state the verdict was judged on. */
async function recordedVenue(seq: number): Promise<VenuePoolFact> {
  const text = await (await fetch(`${running.base}/api/v1/audit/facts?from_seq=${seq}&limit=1`)).text();
  const documents = text.trim().split('\n').map((line) => JSON.parse(line.slice(line.indexOf(' ', line.indexOf(' ') + 1) + 1)));
  const venue = documents.find((document) => document.kind === 'venue');
  assert.ok(venue, `the facts of seq ${seq} name a venue document: ${text.slice(0, 400)}`);
  return venue.fact as VenuePoolFact;
}

describe('price impact on the devnet venue', () => {
  it('a buy moving SPY above max_slippage_bps is denied with PRICE_IMPACT_EXCEEDS_SLIPPAGE; within a wider tolerance it is allowed', async () => {
    const tight = await analyze(spyBuy({ max_slippage_bps: 0 }));
    assert.equal(tight.decision, 'deny');
    assert.ok(tight.price_impact_bps > 0, String(tight.price_impact_bps));
    assert.match(tight.reasons[0], /^PRICE_IMPACT_EXCEEDS_SLIPPAGE: price impact of [\d.]+ bps on the venue pool at block \d+ exceeds max_slippage_bps of 0$/);
    const wide = await analyze(spyBuy({ max_slippage_bps: 100 }));
    assert.equal(wide.decision, 'allow');
    // Only advisories (the devnet runs on real time, so MARKET_CLOSED may be one of them).
    assert.deepEqual(wide.reasons.filter((text: string) => !isAdvisory(text)), []);
    assert.ok(wide.price_impact_bps > 0 && wide.price_impact_bps < 100, String(wide.price_impact_bps));
  });

  it("the verdict's price_impact_bps is the quote of the recorded pool state, which is the pool's own state at that block", async () => {
    const verdict = await analyze(spyBuy({ max_slippage_bps: 0 }));
    const venue = await recordedVenue(verdict.audit_seq);
    assert.equal(venue.pool_id, devnet.pools.SPY!.poolId);
    assert.ok(venue.ticks.length >= 2, 'the concentrated ranges put initialized ticks near the price');
    const client = publicClientFor(devnet);
    const block = await client.getBlock({ blockNumber: BigInt(venue.block.number) });
    assert.equal(block.hash, venue.block.hash);
    const at = { address: devnet.contracts.stateView as Address, abi: stateViewAbi, args: [venue.pool_id as Hex], blockNumber: block.number } as const;
    const [sqrtPriceX96, tick] = await client.readContract({ ...at, functionName: 'getSlot0' });
    const liquidity = await client.readContract({ ...at, functionName: 'getLiquidity' });
    assert.deepEqual([venue.sqrt_price_x96, venue.tick, venue.liquidity], [sqrtPriceX96.toString(), tick, liquidity.toString()]);
    const quoted = quoteImpact(venue, 'buy', unitsAtLeast(6, 18)!);
    assert.deepEqual(quoted, { kind: 'quoted', bps: verdict.price_impact_bps, fill: 'filled', block: venue.block.number });
  });

  it('MCP evaluate_trade gives the same decision, reason and price_impact_bps', async () => {
    const trade = spyBuy({ max_slippage_bps: 0 });
    const rest = await analyze(trade);
    const mcp = await callMcpTool(running.base, 'evaluate_trade', { ...trade, wallet: freshWallet() });
    assert.equal(mcp.isError, false);
    assert.equal(mcp.structured.decision, 'deny');
    assert.equal((mcp.structured.reasons as string[])[0]!.split(':')[0], 'PRICE_IMPACT_EXCEEDS_SLIPPAGE');
    const [restFact, mcpFact] = [await recordedVenue(rest.audit_seq), await recordedVenue(mcp.structured.audit_seq as number)];
    // Nothing swaps on the devnet between the two, so both are judged on the same pool state.
    assert.equal(mcpFact.sqrt_price_x96, restFact.sqrt_price_x96);
    assert.equal(mcp.structured.price_impact_bps, rest.price_impact_bps);
  });

  it('max_allowed_amount is an amount whose impact on the recorded pool stays within the tolerance, and it is allowed', async () => {
    const deny = await analyze(spyBuy({ max_slippage_bps: 0 }));
    const amount = deny.max_allowed_amount;
    assert.ok(typeof amount === 'number' && amount > 0 && amount < 6, String(amount));
    const venue = await recordedVenue(deny.audit_seq);
    const at = quoteImpact(venue, 'buy', unitsAtLeast(amount, 18)!);
    assert.ok(at.kind === 'quoted' && at.bps <= 0, JSON.stringify(at));
    const allowed = await analyze(spyBuy({ amount, max_slippage_bps: 0 }));
    assert.equal(allowed.decision, 'allow', JSON.stringify(allowed.reasons));
  });

  it('no permit is signed for a trade whose impact exceeds the tolerance; within it the allow carries one', async () => {
    const over = await analyze(spyBuy({ max_slippage_bps: 0, permit: true }));
    assert.equal(over.decision, 'deny');
    assert.equal(over.reasons[0].split(':')[0], 'PRICE_IMPACT_EXCEEDS_SLIPPAGE');
    assert.equal('permit' in over, false);
    const within = await analyze(spyBuy({ max_slippage_bps: 100, permit: true }));
    assert.equal(within.decision, 'allow');
    assert.equal(typeof within.permit?.signature, 'string');
  });

  it('audit:replay re-derives every verdict, price-impact denies included, from the recorded pool states', async () => {
    let out = '';
    const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
    const status = await runAuditReplay([running.base, '--json'], io);
    const report = JSON.parse(out);
    assert.equal(status, EXIT_REPRODUCED, out);
    // The nine evaluations above, on REST and MCP.
    assert.equal(report.records, 9, out);
    assert.equal(report.reproduced, report.records, out);
  });
});

describe('price impact offline', () => {
  let offline: TestService;
  before(async () => {
    offline = await startTestService({ RATE_LIMITS: 'off' });
  });
  after(() => offline.stop());

  it('with no venue reading the verdict says the impact is unknown, keeps its decision, and price_impact_bps is null', async () => {
    const answer = await postJson(`${offline.base}/api/v1/analyze/free`, {
      wallet: freshWallet(), asset: 'TSLA', contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', side: 'buy', amount: 1,
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.json.price_impact_bps, null);
    assert.ok(answer.json.reasons.includes('ADVISORY: PRICE_IMPACT_UNKNOWN: price impact of this trade is unknown: the service reads no chain'), JSON.stringify(answer.json.reasons));
    assert.equal(answer.json.decision, 'allow');
    const mcp = await callMcpTool(offline.base, 'evaluate_trade', {
      wallet: freshWallet(), asset: 'TSLA', contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', side: 'buy', amount: 1,
    });
    assert.equal(mcp.structured.price_impact_bps, null);
  });
});
