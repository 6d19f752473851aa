// Counterfactuals through the running service: REST and MCP carry the same fields, and acting on them works.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lastUnitsReadAs, unitsAtLeast, unitsToAmount } from '../../../src/risk/amount-grid.js';
import { callMcpTool } from '../../support/mcp-client.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../support/service.js';

let running: TestService;
let walletSeq = 0;
const freshWallet = () => `0x${(0xc0f000 + walletSeq++).toString(16).padStart(40, '0')}`;
const analyze = async (body: Record<string, unknown>) => (await postJson(`${running.base}/api/v1/analyze/free`, body)).json;

before(async () => {
  // Offline: the sample registry's default prices, so the advisory floor (Tier 1: 500 USD) bounds the size.
  running = await startTestService();
});
after(() => running.stop());

describe('counterfactuals in the verdict', () => {
  it('a deny over the advisory floor names the largest allowed amount, and that amount is allowed', async () => {
    const deny = await analyze(sampleTrade({ wallet: freshWallet(), amount: 10 }));
    assert.equal(deny.decision, 'deny');
    assert.ok(deny.reasons[0].startsWith('PRICE_FALLBACK_OVER_FLOOR: '));
    const max = deny.max_allowed_amount as number;
    assert.equal(typeof max, 'number');
    // A default price of 350.25 USD and a floor of 500 USD: just under 1.4276 TSLA.
    assert.ok(max > 1.4275 && max < 1.4276, String(max));
    const allowed = await analyze(sampleTrade({ wallet: freshWallet(), amount: max }));
    assert.equal(allowed.decision, 'allow');
    assert.equal('max_allowed_amount' in allowed, false);
    const next = unitsToAmount(lastUnitsReadAs(unitsAtLeast(max, 18)!, 18) + 1n, 18);
    assert.equal((await analyze(sampleTrade({ wallet: freshWallet(), amount: next }))).decision, 'deny');
    // Tier 3's floor is 10,000 USD: the holdings that grant it would allow the trade.
    assert.deepEqual(deny.tier_needed, { tier: 3, min_tokens: 5000 });
  });

  it('MCP carries the same counterfactuals as REST for the same trade', async () => {
    const trade = sampleTrade({ wallet: freshWallet(), amount: 10 });
    const rest = await analyze(trade);
    const mcp = await callMcpTool(running.base, 'evaluate_trade', sampleTrade({ wallet: freshWallet(), amount: 10 }));
    assert.equal(mcp.isError, false);
    for (const field of ['max_allowed_amount', 'tier_needed', 'next_market_open']) assert.deepEqual(mcp.structured[field], rest[field], field);
  });

  it('a fake token: no amount would be allowed', async () => {
    const fake = await analyze(sampleTrade({ wallet: freshWallet(), contract_address: '0x9999999999999999999999999999999999999999' }));
    assert.equal(fake.decision, 'deny');
    assert.equal(fake.max_allowed_amount, null);
    assert.equal(fake.tier_needed, undefined);
  });

  it('a window near its limit says when it stops weighing in; the market says when it opens', async () => {
    const wallet = freshWallet();
    let last: Record<string, any> = {};
    // Tier 1: 10 per window; the 8th evaluation is at 80% and weighs in.
    for (let i = 0; i < 8; i++) last = await analyze(sampleTrade({ wallet, amount: 10 }));
    assert.ok(last.reasons.some((reason: string) => reason.includes('RATE_WINDOW_NEAR_LIMIT')));
    assert.ok(Number.isInteger(last.retry_after_seconds) && last.retry_after_seconds >= 1 && last.retry_after_seconds <= 60, String(last.retry_after_seconds));
    const closed = last.reasons.some((reason: string) => reason.includes('MARKET_CLOSED'));
    assert.equal('next_market_open' in last, closed);
    if (closed) assert.ok(last.next_market_open > last.timestamp && last.next_market_open - last.timestamp < 5 * 86_400);
  });
});

describe('a permit asked of a service with no guard', () => {
  it('is a 503 permits_unavailable before anything is counted; the signer is still published, with no guard', async () => {
    const wallet = freshWallet();
    const refused = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1, permit: true }));
    assert.equal(refused.status, 503);
    assert.equal(refused.json.code, 'permits_unavailable');
    assert.equal(refused.json.audit_seq, null);
    const signer = (await getJson(`${running.base}/.well-known/permit-signer.json`)).json;
    assert.equal(signer.guard, null);
    assert.match(signer.address, /^0x[0-9a-fA-F]{40}$/);
    // The refusal took no evaluation from the window: ten more still fit (Tier 1: 10 per window).
    for (let i = 0; i < 10; i++) assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }))).status, 200);
  });
});
