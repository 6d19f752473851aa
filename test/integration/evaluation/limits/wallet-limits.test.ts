// A wallet's own limits over real HTTP: set and read with /api/v1/config, each row of the table denying on REST and MCP,
// the daily budget counted across channels, a change recorded in the wallet's chain, and the limits kept across a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { callMcpTool } from '../../../support/mcp-client.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';

let running: TestService;
const clock = { now: OPEN_MARKET_MS };

async function start(dataDir?: string): Promise<TestService> {
  return startTestService({ RATE_LIMITS: 'off', JWT_SECRET: 'wallet-limits-test-secret-of-at-least-32-characters' }, dataDir, { now: () => clock.now });
}

before(async () => {
  running = await start();
});
after(() => running.stop());

/** A fresh wallet signed in (Tier 1 offline: no holdings are read), with its bearer header. */
async function signedIn(): Promise<{ wallet: string; bearer: Record<string, string> }> {
  const signer = privateKeyToAccount(generatePrivateKey());
  const nonce = await getJson(`${running.base}/api/v1/auth/nonce?address=${signer.address}`);
  const login = await postJson(`${running.base}/api/v1/auth/wallet`, { address: signer.address, signature: await signer.signMessage({ message: nonce.json.message }) });
  assert.equal(login.status, 200, login.text);
  return { wallet: signer.address.toLowerCase(), bearer: { authorization: `Bearer ${login.json.access_token}` } };
}

async function setLimits(bearer: Record<string, string>, limits: unknown): Promise<any> {
  const answer = await postJson(`${running.base}/api/v1/config`, { blocked_assets: [], limits }, bearer);
  assert.equal(answer.status, 200, answer.text);
  return answer.json;
}

const NONE = { max_trade_usd: null, daily_notional_usd: null, allowed_assets: null, allowed_sides: null, max_slippage_bps: null };

// TSLA is priced at its registry default of 350.25 USD offline: 1 TSLA is 350.25 USD, under the Tier 1 advisory floor.
const ROWS: Array<{ limit: Record<string, unknown>; trade: Record<string, unknown>; code: string; words: string }> = [
  { limit: { max_trade_usd: 300 }, trade: {}, code: 'POLICY_MAX_TRADE', words: "350.25 USD exceeds this wallet's own per-trade limit of 300 USD" },
  { limit: { daily_notional_usd: 300 }, trade: {}, code: 'POLICY_DAILY_BUDGET', words: "350.25 USD would bring today's use to 350.25 USD, over this wallet's daily budget of 300 USD (300 USD left until 00:00 UTC)" },
  { limit: { allowed_assets: ['nvda'] }, trade: {}, code: 'POLICY_ASSET_NOT_ALLOWED', words: 'TSLA is not among the assets this wallet allows itself (NVDA)' },
  { limit: { allowed_sides: ['buy'] }, trade: { side: 'sell' }, code: 'POLICY_SIDE_NOT_ALLOWED', words: 'sell is not a side this wallet allows itself (only buy)' },
  { limit: { max_slippage_bps: 50 }, trade: { max_slippage_bps: 51 }, code: 'POLICY_SLIPPAGE', words: "max_slippage_bps 51 exceeds this wallet's own limit of 50 bps" },
];

describe('limits on a wallet (README "Fleet limits")', () => {
  it('are stored and returned by /api/v1/config, normalised, null when none, and kept when a body leaves them out', async () => {
    const { bearer } = await signedIn();
    assert.equal((await getJson(`${running.base}/api/v1/config`, bearer)).json.limits, null);
    const set = await setLimits(bearer, { max_trade_usd: 1000, allowed_assets: ['tsla', 'TSLA'], allowed_sides: ['sell', 'buy'] });
    assert.deepEqual(set.limits, { ...NONE, max_trade_usd: 1000, allowed_assets: ['TSLA'], allowed_sides: ['buy', 'sell'] });
    const kept = await postJson(`${running.base}/api/v1/config`, { blocked_assets: ['NVDA'] }, bearer);
    assert.deepEqual([kept.json.blocked_assets, kept.json.limits], [['NVDA'], set.limits]);
    assert.deepEqual((await getJson(`${running.base}/api/v1/config`, bearer)).json.limits, set.limits);
    assert.equal((await setLimits(bearer, null)).limits, null);
  });

  it('refuses with 422 a limit looser than the tier, an asset outside the registry, or an unknown field, and applies none of it', async () => {
    const { bearer } = await signedIn();
    const looser = await postJson(`${running.base}/api/v1/config`, { blocked_assets: [], limits: { max_trade_usd: 5000.01, allowed_assets: ['TSLA', 'NOPE'] } }, bearer);
    assert.equal(looser.status, 422);
    assert.deepEqual(looser.json, {
      code: 'validation_failed',
      detail: [
        {
          loc: ['body', 'limits', 'max_trade_usd'], type: 'value_error', input: 5000.01,
          msg: "Value error, max_trade_usd 5000.01 is above this wallet's tier ceiling of 5000 USD; a limit may only tighten the tier",
          ctx: { error: "max_trade_usd 5000.01 is above this wallet's tier ceiling of 5000 USD; a limit may only tighten the tier" },
        },
        {
          loc: ['body', 'limits', 'allowed_assets', 1], type: 'value_error', input: 'NOPE',
          msg: 'Value error, NOPE is not in the official registry (GET /api/v1/assets lists its symbols)',
          ctx: { error: 'NOPE is not in the official registry (GET /api/v1/assets lists its symbols)' },
        },
      ],
    });
    const unknown = await postJson(`${running.base}/api/v1/config`, { blocked_assets: [], limits: { max_trade: 1 } }, bearer);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.code, 'validation_failed');
    const sides = await postJson(`${running.base}/api/v1/config`, { blocked_assets: [], limits: { allowed_sides: [] } }, bearer);
    assert.equal(sides.status, 422);
    assert.equal((await getJson(`${running.base}/api/v1/config`, bearer)).json.limits, null);
  });

  for (const row of ROWS) {
    it(`${row.code}: ${JSON.stringify(row.limit)} denies on REST (bearer and free) and MCP, and the same trade without it is not denied`, async () => {
      const { wallet, bearer } = await signedIn();
      const trade = sampleTrade({ wallet, amount: 1, ...row.trade });
      const before = await postJson(`${running.base}/api/v1/analyze/free`, trade);
      assert.notEqual(before.json.decision, 'deny', before.text);
      await setLimits(bearer, row.limit);
      const reason = `${row.code}: ${row.words}`;
      const rest = await postJson(`${running.base}/api/v1/analyze/trade`, trade, bearer);
      assert.equal(rest.status, 200, rest.text);
      assert.equal(rest.json.decision, 'deny');
      assert.equal(rest.json.reasons[0], reason);
      const free = await postJson(`${running.base}/api/v1/analyze/free`, trade);
      assert.deepEqual([free.json.decision, free.json.reasons[0]], ['deny', reason]);
      const mcp = await callMcpTool(running.base, 'evaluate_trade', trade);
      assert.equal(mcp.isError, false);
      assert.deepEqual([mcp.structured.decision, (mcp.structured.reasons as string[])[0]], ['deny', reason]);
    });
  }

  it('counts allowed and warned notionals against the day across channels, and max_allowed_amount is what is left', async () => {
    const { wallet, bearer } = await signedIn();
    await setLimits(bearer, { daily_notional_usd: 1000 });
    const trade = sampleTrade({ wallet, amount: 1 });
    const first = await postJson(`${running.base}/api/v1/analyze/free`, trade);
    assert.notEqual(first.json.decision, 'deny', first.text);
    const second = await callMcpTool(running.base, 'evaluate_trade', trade);
    assert.notEqual(second.structured.decision, 'deny');
    // 700.50 USD used; a third 350.25 USD would make 1,050.75.
    const third = await postJson(`${running.base}/api/v1/analyze/trade`, trade, bearer);
    assert.equal(third.json.decision, 'deny');
    assert.equal(third.json.reasons[0],
      "POLICY_DAILY_BUDGET: 350.25 USD would bring today's use to 1,050.75 USD, over this wallet's daily budget of 1,000 USD (299.5 USD left until 00:00 UTC)");
    // 299.50 USD at 350.25 USD: the largest amount whose notional still rounds to 299.50.
    const left = third.json.max_allowed_amount as number;
    assert.equal(Math.round(left * 350.25 * 100), 29_950, String(left));
    assert.equal(Math.round((left + 0.00002) * 350.25 * 100), 29_951, 'one step more would cost a cent more');
    const fits = await postJson(`${running.base}/api/v1/analyze/free`, { ...trade, amount: left });
    assert.notEqual(fits.json.decision, 'deny', fits.text);
    // A deny counted nothing, so the budget is now spent to the cent.
    const spent = await postJson(`${running.base}/api/v1/analyze/free`, { ...trade, amount: 0.01 });
    assert.match(spent.json.reasons[0], /^POLICY_DAILY_BUDGET: 3.5 USD would bring today's use to 1,003.5 USD/);
    // The next UTC day starts from nothing.
    clock.now += 86_400_000;
    try {
      assert.notEqual((await postJson(`${running.base}/api/v1/analyze/free`, trade)).json.decision, 'deny');
    } finally {
      clock.now -= 86_400_000;
    }
  });

  it('records each change of limits in the wallet\'s audit chain: who, before and after', async () => {
    const { wallet, bearer } = await signedIn();
    await setLimits(bearer, { daily_notional_usd: 500 });
    await setLimits(bearer, { daily_notional_usd: 5000, allowed_sides: ['buy'] });
    // Not a change of limits: no record.
    await postJson(`${running.base}/api/v1/config`, { blocked_assets: ['NVDA'] }, bearer);
    const listed = await getJson(`${running.base}/api/v1/audit/wallet/${wallet}`);
    const records = listed.json.records.map((r: any) => ({ channel: r.channel, decision: r.decision, reasons: r.reasons, request: r.request }));
    assert.deepEqual(records, [
      {
        channel: 'config', decision: 'allow',
        reasons: [`POLICY_LIMITS_CHANGED: ${wallet} set daily_notional_usd: 500 -> 5000, allowed_sides: null -> ["buy"]`],
        request: { limits_change: { changed_by: wallet, before: { ...NONE, daily_notional_usd: 500 }, after: { ...NONE, daily_notional_usd: 5000, allowed_sides: ['buy'] } } },
      },
      {
        channel: 'config', decision: 'allow',
        reasons: [`POLICY_LIMITS_CHANGED: ${wallet} set daily_notional_usd: null -> 500`],
        request: { limits_change: { changed_by: wallet, before: null, after: { ...NONE, daily_notional_usd: 500 } } },
      },
    ]);
    assert.equal((await getJson(`${running.base}/api/v1/audit/verify/${wallet}`)).json.healthy, true);
  });

  it('survive a restart: the limits and the day\'s use are in the store', async () => {
    const { wallet, bearer } = await signedIn();
    await setLimits(bearer, { daily_notional_usd: 400, allowed_sides: ['buy'] });
    const trade = sampleTrade({ wallet, amount: 1 });
    assert.notEqual((await postJson(`${running.base}/api/v1/analyze/free`, trade)).json.decision, 'deny');
    const dataDir = running.dataDir;
    await running.stop(false);
    running = await start(dataDir);
    const again = await postJson(`${running.base}/api/v1/analyze/free`, trade);
    assert.match(again.json.reasons[0], /^POLICY_DAILY_BUDGET: 350.25 USD would bring today's use to 700.5 USD/);
    const sell = await postJson(`${running.base}/api/v1/analyze/free`, { ...trade, side: 'sell', amount: 0.1 });
    assert.match(sell.json.reasons[0], /^POLICY_SIDE_NOT_ALLOWED: /);
  });
});
