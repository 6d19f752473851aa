// One suite, every evaluating channel: the same trade gives the same answer, window, idempotency and failure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { sendA2A } from '../../support/a2a-client.js';
import { callMcpTool } from '../../support/mcp-client.js';
import { PaidWorld, payWith } from '../../support/paid-world.js';
import { freePort } from '../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../support/service.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { signPayment } from '../../support/x402-payer.js';

/** What any channel answered, in one vocabulary: a verdict, or a refusal with its catalogue code. */
interface Answer {
  kind: 'verdict' | 'refused';
  verdict?: Record<string, unknown>;
  code?: string;
}

interface ChannelUnderTest {
  name: string;
  /** The `channel` its audit records carry. */
  recorded: string;
  /** The call proves its wallet (a bearer token), so it has a window of its own (ARCHITECTURE.md "Proven callers keep their window"). */
  proven?: boolean;
  evaluate(base: string, signer: PrivateKeyAccount, trade: Record<string, unknown>): Promise<Answer>;
}

const JWT_SECRET = 'channel-parity-test-secret-of-at-least-32-characters';
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const ENV = { JWT_SECRET, RATE_LIMIT_IP_MCP: '1000', RATE_LIMIT_IP_A2A: '1000', RATE_LIMIT_IP_DEMO: '1000', RATE_LIMIT_IP_AUTH: '1000' };

const tokens = new Map<string, string>();

/** A bearer token for the signer, from whichever instance `base` is (they share JWT_SECRET). */
async function tokenFor(base: string, signer: PrivateKeyAccount): Promise<string> {
  const known = tokens.get(signer.address);
  if (known) return known;
  const nonce = await getJson(`${base}/api/v1/auth/nonce?address=${signer.address}`);
  const signature = await signer.signMessage({ message: nonce.json.message });
  const login = await postJson(`${base}/api/v1/auth/wallet`, { address: signer.address, signature });
  assert.equal(login.status, 200, login.text);
  tokens.set(signer.address, login.json.access_token);
  return login.json.access_token;
}

function fromRest(response: { status: number; json: any }): Answer {
  if (response.status === 200) return { kind: 'verdict', verdict: response.json };
  assert.equal(typeof response.json.code, 'string', `a ${response.status} without a code`);
  return { kind: 'refused', code: response.json.code };
}

const rest = (path: string, recorded: string): ChannelUnderTest => ({
  name: path,
  recorded,
  evaluate: async (base, _signer, trade) => fromRest(await postJson(base + path, trade)),
});

const CHANNELS: ChannelUnderTest[] = [
  rest('/api/v1/analyze/free', 'free'),
  rest('/api/v1/demo/analyze', 'demo'),
  {
    name: '/api/v1/analyze/trade (a Tier 1 wallet)',
    recorded: 'rest',
    proven: true,
    evaluate: async (base, signer, trade) =>
      fromRest(await postJson(`${base}/api/v1/analyze/trade`, trade, { authorization: `Bearer ${await tokenFor(base, signer)}` })),
  },
  {
    name: 'MCP evaluate_trade',
    recorded: 'mcp',
    evaluate: async (base, _signer, trade) => {
      const answer = await callMcpTool(base, 'evaluate_trade', trade);
      return answer.isError ? { kind: 'refused', code: answer.structured.code as string } : { kind: 'verdict', verdict: answer.structured };
    },
  },
  {
    name: 'A2A evaluate-trade',
    recorded: 'a2a',
    evaluate: async (base, _signer, trade) => {
      const answer = await sendA2A(base, trade);
      return answer.kind === 'task' ? { kind: 'verdict', verdict: answer.data } : { kind: 'refused', code: answer.code };
    },
  },
];

/** The fields every channel's verdict shares (REST adds timestamp, contract_risk and daily P&L). */
const SHARED = ['decision', 'reasons', 'tier', 'max_trade_usd', 'calculated_notional_usd', 'price_usd', 'price_source', 'risk_score', 'request_id'];
const pick = (verdict: Record<string, unknown>) => Object.fromEntries(SHARED.map((key) => [key, verdict[key]]));

let running: TestService;

before(async () => {
  running = await startTestService(ENV, undefined, { now: () => OPEN_MARKET });
});
after(() => running.stop());

const tradeFor = (signer: PrivateKeyAccount, patch: Record<string, unknown> = {}) =>
  sampleTrade({ wallet: signer.address, amount: 3, max_slippage_bps: 150, ...patch });

describe('the same trade through every channel', () => {
  it('gives the same decision, score, reasons and tier, and an audit record that differs only in its channel', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const answers: Answer[] = [];
    for (const channel of CHANNELS) answers.push(await channel.evaluate(running.base, signer, tradeFor(signer)));
    for (const answer of answers) assert.equal(answer.kind, 'verdict');
    const [first, ...rest] = answers.map((answer) => pick(answer.verdict!));
    for (const [index, other] of rest.entries()) assert.deepEqual(other, first, CHANNELS[index + 1]!.name);

    const listed = (await getJson(`${running.base}/api/v1/audit/wallet/${signer.address}`)).json.records.reverse();
    assert.deepEqual(listed.map((record: { channel: string }) => record.channel), CHANNELS.map((channel) => channel.recorded));
    assert.deepEqual(listed.map((record: { seq: number }) => record.seq), answers.map((answer) => answer.verdict!.audit_seq));
    // REST's schema fills allow_unregistered's default into the recorded request; MCP's has no such field.
    // The facts differ by design: each evaluation counts one more in the wallet's window, and each names its channel.
    const comparable = ({ channel: _c, seq: _s, ts: _t, hash: _h, prev_hash: _p, wallet_prev_hash: _w, facts_hash: _f, ...record }: any) => ({
      ...record,
      request: { ...record.request, allow_unregistered: undefined },
    });
    for (const record of listed.slice(1)) assert.deepEqual(comparable(record), comparable(listed[0]));
  });

  it('shares one per-wallet window: the eleventh unproven evaluation is refused on every unproven channel, the bearer keeps its own', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const unproven = CHANNELS.filter((channel) => !channel.proven);
    for (let i = 0; i < 10; i += 1) {
      const answer = await unproven[i % unproven.length]!.evaluate(running.base, signer, tradeFor(signer));
      assert.equal(answer.kind, 'verdict', `evaluation ${i + 1}`);
    }
    for (const channel of CHANNELS) {
      const answer = await channel.evaluate(running.base, signer, tradeFor(signer));
      if (channel.proven) assert.equal(answer.kind, 'verdict', channel.name);
      else assert.deepEqual(answer, { kind: 'refused', code: 'rate_limited' }, channel.name);
    }
  });

  it('replays a retried request_id and refuses it with another body, on every channel', async () => {
    for (const channel of CHANNELS) {
      const signer = privateKeyToAccount(generatePrivateKey());
      const first = await channel.evaluate(running.base, signer, tradeFor(signer, { request_id: 'order-1' }));
      const retry = await channel.evaluate(running.base, signer, tradeFor(signer, { request_id: 'order-1' }));
      assert.equal(first.kind, 'verdict', channel.name);
      assert.deepEqual(retry, first, `${channel.name}: the retry is the same verdict, one audit record`);
      const other = await channel.evaluate(running.base, signer, tradeFor(signer, { request_id: 'order-1', amount: 4 }));
      assert.deepEqual(other, { kind: 'refused', code: 'idempotency_conflict' }, channel.name);
    }
  });
});

describe('an amount below one base unit of the token', () => {
  /** FastAPI's 422 for `amount` at `decimals`; MCP's tool error carries the same issue without REST's 'body'. */
  const issue = (amount: number, decimals = 18) => {
    const error = `amount is less than one base unit of the token (10^-${decimals} at ${decimals} decimals)`;
    return { loc: ['body', 'amount'], msg: `Value error, ${error}`, type: 'value_error', input: amount, ctx: { error } };
  };

  it('is a 422 at amount on every channel, and nothing is counted or recorded; one base unit is a trade', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    // 1e-30 and 5e-324 (the smallest double) were `allow`, with a permit for 0 units when one was asked for.
    for (const amount of [1e-30, 5e-324, 1e-19]) {
      for (const channel of CHANNELS) {
        const answer = await channel.evaluate(running.base, signer, tradeFor(signer, { amount }));
        assert.deepEqual(answer, { kind: 'refused', code: 'validation_failed' }, `${channel.name} ${amount}`);
      }
    }
    const rest = await postJson(`${running.base}/api/v1/analyze/free`, tradeFor(signer, { amount: 1e-30, permit: true }));
    assert.deepEqual([rest.status, rest.json], [422, { detail: [issue(1e-30)], code: 'validation_failed' }]);
    const mcp = await callMcpTool(running.base, 'evaluate_trade', tradeFor(signer, { amount: 5e-324 }));
    const { loc: _loc, ...rest5e324 } = issue(5e-324);
    assert.deepEqual(mcp.structured, { error: 'invalid arguments', code: 'validation_failed', detail: [{ ...rest5e324, loc: ['amount'] }] });
    assert.deepEqual((await getJson(`${running.base}/api/v1/audit/wallet/${signer.address}`)).json.records, []);
    for (const channel of CHANNELS) {
      assert.equal((await channel.evaluate(running.base, signer, tradeFor(signer, { amount: 1e-18 }))).kind, 'verdict', channel.name);
    }
  });

  it('is read at 18 decimals for a contract the registry does not list', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const unlisted = { asset: 'ZZZZ', contract_address: privateKeyToAccount(generatePrivateKey()).address, allow_unregistered: true };
    const refused = await postJson(`${running.base}/api/v1/analyze/free`, tradeFor(signer, { ...unlisted, amount: 1e-19 }));
    assert.deepEqual([refused.status, refused.json.detail], [422, [issue(1e-19)]]);
    assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, tradeFor(signer, { ...unlisted, amount: 1e-18 }))).status, 200);
  });
});

describe('a dead chain node', () => {
  let dead: TestService;

  before(async () => {
    // Nothing listens on this port: every chain read is refused at once.
    dead = await startTestService({ ...ENV, RPC_URL: `http://127.0.0.1:${await freePort()}` }, undefined, { now: () => OPEN_MARKET });
  });
  after(() => dead.stop());

  it('is an error with chain_unavailable on every channel, never a verdict', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    await tokenFor(running.base, signer);
    for (const channel of CHANNELS) {
      assert.deepEqual(await channel.evaluate(dead.base, signer, tradeFor(signer)), { kind: 'refused', code: 'chain_unavailable' }, channel.name);
    }
  });
});

describe('the paid channel (x402) at Tier 2', () => {
  const tempDir = useTempDirs('parity-x402-');
  let world: PaidWorld;
  let paid: TestService;

  before(async () => {
    world = await PaidWorld.start(await tempDir());
    paid = await world.service({ ...ENV, RATE_LIMIT_WALLET_TIER2: '4' }, undefined, { now: () => OPEN_MARKET });
  });
  after(async () => {
    await paid?.stop();
    await world?.close();
  });

  async function payFor(trade: Record<string, unknown>): Promise<Answer> {
    const payment = await signPayment(world.devnet.wallets[0].privateKey, await world.challenge(paid.base));
    return fromRest(await payWith(paid.base, trade, payment));
  }

  it('gives the same decision, score, reasons and tier as REST for a Tier 2 wallet, and a record that differs only in channel and payment', async () => {
    // Demo wallet C holds 2,500 service tokens: Tier 2 on REST by holdings, Tier 2 paid by anyone.
    const signer = privateKeyToAccount(world.devnet.wallets[2].privateKey);
    const trade = world.trade({ wallet: signer.address, amount: 20, max_slippage_bps: 150 });
    const bearer = { authorization: `Bearer ${await tokenFor(paid.base, signer)}` };
    const rest = fromRest(await postJson(`${paid.base}/api/v1/analyze/trade`, trade, bearer));
    const x402 = await payFor(trade);
    assert.equal(rest.kind, 'verdict');
    assert.equal(x402.kind, 'verdict');
    assert.equal(x402.verdict!.tier, 2);
    assert.deepEqual(pick(x402.verdict!), pick(rest.verdict!));
    const [paidRecord, restRecord] = (await getJson(`${paid.base}/api/v1/audit/wallet/${signer.address}?limit=2`)).json.records;
    assert.deepEqual([restRecord.channel, paidRecord.channel], ['rest', 'x402']);
    assert.equal(typeof paidRecord.payment.transaction, 'string');
    // The facts differ by design: the window count, and the tier's basis (holdings against payment).
    const comparable = ({ channel: _c, seq: _s, ts: _t, hash: _h, prev_hash: _p, wallet_prev_hash: _w, payment: _m, facts_hash: _f, ...record }: any) => record;
    assert.deepEqual(comparable(paidRecord), comparable(restRecord));
  });

  it('refuses an amount below one base unit with 422 before the payment is read or charged, on REST and MCP', async () => {
    const payer = world.devnet.wallets[0];
    const before = await world.usdc(payer.address);
    const trade = world.trade({ amount: 1e-30 });
    const payment = await signPayment(payer.privateKey, await world.challenge(paid.base));
    const answer = await payWith(paid.base, trade, payment);
    assert.equal(answer.status, 422, answer.text);
    assert.deepEqual(answer.json.detail.map((issue: { loc: unknown }) => issue.loc), [['body', 'amount']]);
    assert.equal(answer.headers.get('payment-response'), null);
    for (const args of [{ ...trade }, { ...trade, payment_proof: payment }]) {
      const mcp = await callMcpTool(paid.base, 'evaluate_trade_paid', args);
      assert.deepEqual([mcp.isError, mcp.structured.code, (mcp.structured.detail as { loc: unknown }[])[0]!.loc], [true, 'validation_failed', ['amount']]);
    }
    assert.equal(await world.usdc(payer.address), before);
    // The same payment still buys a verdict for a valid trade.
    assert.equal((await payWith(paid.base, world.trade({ amount: 1 }), payment)).status, 200);
  });

  it('shares the per-wallet window with the free channel', async () => {
    const trade = world.trade({ amount: 1 });
    for (let i = 0; i < 4; i += 1) assert.equal((await postJson(`${paid.base}/api/v1/analyze/free`, trade)).status, 200);
    assert.deepEqual(await payFor(trade), { kind: 'refused', code: 'rate_limited' });
  });
});
