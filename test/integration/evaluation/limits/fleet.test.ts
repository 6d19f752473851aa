// Fleets over real HTTP (docs/fleet-limits.md "Fleets"): an agent's EIP-712 delegation registered by its operator, refused when
// forged, expired, for another operator or ended; the operator's limits denying the agent on REST and MCP; the fleet listing; a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { callMcpTool } from '../../../support/mcp-client.js';
import { getJson, postJson, sampleTrade, send, startTestService, type HttpResult, type TestService } from '../../../support/service.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { parsePrometheusText } from '../../../support/prometheus-text.js';

let running: TestService;
let chainId: number;
const clock = { now: OPEN_MARKET_MS };
const HOUR_S = 3600;

async function start(dataDir?: string): Promise<TestService> {
  return startTestService({ RATE_LIMITS: 'off', JWT_SECRET: 'fleet-test-secret-of-at-least-32-characters-long' }, dataDir, { now: () => clock.now });
}

before(async () => {
  running = await start();
  chainId = (await getJson(`${running.base}/`)).json.chain.id;
});
after(() => running.stop());

interface Wallet {
  account: PrivateKeyAccount;
  address: string;
  bearer: Record<string, string>;
}

/** A fresh wallet signed in with SIWE (Tier 1 offline), with its bearer header. */
async function signedIn(account = privateKeyToAccount(generatePrivateKey())): Promise<Wallet> {
  const nonce = await getJson(`${running.base}/api/v1/auth/nonce?address=${account.address}`);
  const login = await postJson(`${running.base}/api/v1/auth/wallet`, { address: account.address, signature: await account.signMessage({ message: nonce.json.message }) });
  assert.equal(login.status, 200, login.text);
  return { account, address: account.address.toLowerCase(), bearer: { authorization: `Bearer ${login.json.access_token}` } };
}

/** The delegation as docs/fleet-limits.md "Fleets" writes it out, signed by `signer` (the agent, unless forged). */
async function delegation(agent: Wallet, operator: string, options: { expiry?: number; nonce?: string; signer?: PrivateKeyAccount } = {}) {
  const message = {
    agent: agent.account.address,
    operator: operator as `0x${string}`,
    expiry: BigInt(options.expiry ?? Math.floor(clock.now / 1000) + HOUR_S),
    nonce: BigInt(options.nonce ?? String(Math.floor(Math.random() * 1e15))),
  };
  const signature = await (options.signer ?? agent.account).signTypedData({
    domain: { name: 'trade-guardrail', version: '1', chainId },
    types: { FleetDelegation: [
      { name: 'agent', type: 'address' }, { name: 'operator', type: 'address' }, { name: 'expiry', type: 'uint64' }, { name: 'nonce', type: 'uint256' },
    ] },
    primaryType: 'FleetDelegation',
    message,
  });
  return { agent: message.agent, operator: message.operator, expiry: Number(message.expiry), nonce: message.nonce.toString(), signature };
}

const register = (operator: Wallet, body: unknown): Promise<HttpResult> => postJson(`${running.base}/api/v1/fleet/agents`, body, operator.bearer);
const configure = (operator: Wallet, agent: string, body: unknown): Promise<HttpResult> =>
  postJson(`${running.base}/api/v1/fleet/agents/${agent}/config`, body, operator.bearer);
const remove = (operator: Wallet, agent: string): Promise<HttpResult> => send('DELETE', `${running.base}/api/v1/fleet/agents/${agent}`, undefined, operator.bearer);
const revokeOwn = (agent: Wallet): Promise<HttpResult> => send('DELETE', `${running.base}/api/v1/fleet/delegation`, undefined, agent.bearer);

/** An operator with one agent registered. */
async function fleetOfOne(): Promise<{ operator: Wallet; agent: Wallet; signed: Awaited<ReturnType<typeof delegation>> }> {
  const [operator, agent] = [await signedIn(), await signedIn()];
  const signed = await delegation(agent, operator.account.address);
  const registered = await register(operator, signed);
  assert.equal(registered.status, 200, registered.text);
  return { operator, agent, signed };
}

const NONE = { max_trade_usd: null, daily_notional_usd: null, allowed_assets: null, allowed_sides: null, max_slippage_bps: null };

describe('fleets (docs/fleet-limits.md "Fleets")', () => {
  it('the operator registers an agent by its signed delegation, sets its limits, and the agent\'s next trade is denied by them on REST and MCP', async () => {
    const { operator, agent, signed } = await fleetOfOne();
    const trade = sampleTrade({ wallet: agent.address, amount: 1, side: 'sell' });
    assert.notEqual((await postJson(`${running.base}/api/v1/analyze/free`, trade)).json.decision, 'deny');
    const set = await configure(operator, agent.address, { blocked_assets: [], limits: { allowed_sides: ['buy'], daily_notional_usd: 2500 } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json, {
      wallet: agent.address, max_trade_usd: 5000, blocked_assets: [], editable: true,
      limits: { ...NONE, allowed_sides: ['buy'], daily_notional_usd: 2500 },
    });
    const reason = 'POLICY_SIDE_NOT_ALLOWED: sell is not a side this wallet allows itself (only buy)';
    const rest = await postJson(`${running.base}/api/v1/analyze/trade`, trade, agent.bearer);
    assert.deepEqual([rest.status, rest.json.decision, rest.json.reasons[0]], [200, 'deny', reason]);
    const mcp = await callMcpTool(running.base, 'evaluate_trade', trade);
    assert.deepEqual([mcp.isError, mcp.structured.decision, (mcp.structured.reasons as string[])[0]], [false, 'deny', reason]);
    // The agent sees the same limits as its own, and the change in its chain names the operator.
    assert.deepEqual((await getJson(`${running.base}/api/v1/config`, agent.bearer)).json.limits, set.json.limits);
    const records = (await getJson(`${running.base}/api/v1/audit/wallet/${agent.address}`)).json.records;
    const change = records.find((record: any) => record.channel === 'config');
    assert.deepEqual(change.request.limits_change, { changed_by: operator.address, before: null, after: set.json.limits });
    assert.equal(change.reasons[0], `POLICY_LIMITS_CHANGED: ${operator.address} set daily_notional_usd: null -> 2500, allowed_sides: null -> ["buy"]`);
    // The same checks as the agent's own: a limit looser than the agent's tier is refused and changes nothing.
    const looser = await configure(operator, agent.address, { blocked_assets: [], limits: { max_trade_usd: 5000.01 } });
    assert.deepEqual([looser.status, looser.json.code, looser.json.detail[0].loc], [422, 'validation_failed', ['body', 'limits', 'max_trade_usd']]);
    assert.equal(signed.agent.toLowerCase(), agent.address);
  });

  it('refuses a forged, expired, wrong-operator or malformed delegation with its own code, and registers nothing', async () => {
    const [operator, other, agent] = [await signedIn(), await signedIn(), await signedIn()];
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await register(operator, await delegation(agent, operator.account.address, { signer: stranger }));
    assert.deepEqual([forged.status, forged.json], [403, {
      code: 'delegation_signature_invalid',
      detail: `The signature does not recover to agent ${agent.address} over these fields for chain ${chainId}; have the agent sign the FleetDelegation again`,
    }]);
    const expired = await register(operator, await delegation(agent, operator.account.address, { expiry: Math.floor(clock.now / 1000) }));
    assert.deepEqual([expired.status, expired.json], [403, {
      code: 'delegation_expired', detail: `The delegation expired at ${new Date(clock.now).toISOString()}; have the agent sign a new one`,
    }]);
    const wrong = await register(other, await delegation(agent, operator.account.address));
    assert.deepEqual([wrong.status, wrong.json], [403, {
      code: 'delegation_wrong_operator', detail: `The delegation names operator ${operator.address}; the signed-in wallet is ${other.address}`,
    }]);
    // A signature over other fields than those sent (the expiry moved) is a forgery too.
    const stretched = await delegation(agent, operator.account.address);
    assert.equal((await register(operator, { ...stretched, expiry: stretched.expiry + 86_400 })).json.code, 'delegation_signature_invalid');
    const malformed = await register(operator, { ...stretched, nonce: '-1', extra: true });
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.json.detail.map((issue: any) => [issue.loc, issue.type]), [[['body', 'extra'], 'extra_forbidden'], [['body', 'nonce'], 'string_pattern_mismatch']]);
    const unauthenticated = await postJson(`${running.base}/api/v1/fleet/agents`, stretched);
    assert.deepEqual([unauthenticated.status, unauthenticated.json.code], [401, 'not_authenticated']);
    const set = await configure(operator, agent.address, { blocked_assets: [], limits: { max_trade_usd: 1 } });
    assert.deepEqual([set.status, set.json], [403, {
      code: 'agent_not_delegated', detail: `Agent ${agent.address} has no delegation in force to operator ${operator.address}`,
    }]);
    assert.deepEqual((await getJson(`${running.base}/api/v1/fleet`, operator.bearer)).json, { operator: operator.address, count: 0, agents: [] });
  });

  it('a delegation the agent revoked, or the operator removed, cannot be registered again, and its operator can no longer set limits', async () => {
    const { operator, agent, signed } = await fleetOfOne();
    const revoked = await revokeOwn(agent);
    assert.deepEqual([revoked.status, revoked.json], [200, { agent: agent.address, ended: true, operator: operator.address }]);
    assert.deepEqual((await revokeOwn(agent)).json, { agent: agent.address, ended: false, operator: null });
    const replayed = await register(operator, signed);
    assert.deepEqual([replayed.status, replayed.json], [403, {
      code: 'delegation_revoked',
      detail: `The delegation of ${agent.address} with nonce ${signed.nonce} was ended and cannot be registered again; have the agent sign a new one with a new nonce`,
    }]);
    assert.equal((await configure(operator, agent.address, { blocked_assets: [] })).json.code, 'agent_not_delegated');
    // A new delegation with a new nonce is registered; the operator removes it, and that one cannot come back either.
    const renewed = await delegation(agent, operator.account.address);
    assert.equal((await register(operator, renewed)).status, 200);
    const removed = await remove(operator, agent.address);
    assert.deepEqual([removed.status, removed.json], [200, { agent: agent.address, ended: true, operator: operator.address }]);
    assert.equal((await register(operator, renewed)).json.code, 'delegation_revoked');
    assert.deepEqual([(await remove(operator, agent.address)).status], [403]);
    assert.equal((await getJson(`${running.base}/api/v1/fleet`, operator.bearer)).json.count, 0);
  });

  it('an agent has one operator at a time: another operator is refused until the agent ends the first delegation', async () => {
    const { operator, agent } = await fleetOfOne();
    const rival = await signedIn();
    const taken = await register(rival, await delegation(agent, rival.account.address));
    assert.deepEqual([taken.status, taken.json.code], [409, 'agent_delegated_elsewhere']);
    assert.equal((await remove(rival, agent.address)).json.code, 'agent_not_delegated');
    assert.equal((await configure(rival, agent.address, { blocked_assets: [] })).json.code, 'agent_not_delegated');
    await revokeOwn(agent);
    assert.equal((await register(rival, await delegation(agent, rival.account.address))).status, 200);
    assert.equal((await getJson(`${running.base}/api/v1/fleet`, operator.bearer)).json.count, 0);
    assert.deepEqual((await getJson(`${running.base}/api/v1/fleet`, rival.bearer)).json.agents.map((a: any) => a.agent), [agent.address]);
  });

  it('GET /api/v1/fleet lists each agent with its limits, today\'s use of its daily budget and its verdicts of the last 24 hours', async () => {
    const { operator, agent, signed } = await fleetOfOne();
    const second = await signedIn();
    assert.equal((await register(operator, await delegation(second, operator.account.address))).status, 200);
    await configure(operator, agent.address, { blocked_assets: ['NVDA'], limits: { daily_notional_usd: 1000, allowed_sides: ['buy'] } });
    const trade = sampleTrade({ wallet: agent.address, amount: 1 });
    // Two allowed buys of 350.25 USD, then a deny by the side limit and a deny by the budget.
    for (const body of [trade, trade, { ...trade, side: 'sell' }, trade]) await postJson(`${running.base}/api/v1/analyze/free`, body);
    const listed = await getJson(`${running.base}/api/v1/fleet`, operator.bearer);
    assert.equal(listed.status, 200, listed.text);
    const day = new Date(clock.now).toISOString().slice(0, 10);
    assert.deepEqual(listed.json, {
      operator: operator.address,
      count: 2,
      agents: [
        {
          agent: agent.address,
          delegation: { operator: operator.address, expiry: signed.expiry, nonce: signed.nonce, registered_at: clock.now },
          blocked_assets: ['NVDA'],
          limits: { ...NONE, daily_notional_usd: 1000, allowed_sides: ['buy'] },
          daily_budget: { day, used_usd: 700.5, limit_usd: 1000, left_usd: 299.5 },
          verdicts_24h: { allow: 2, warn: 0, deny: 2, error: 0, records_read: 5, capped: false },
        },
        {
          agent: second.address,
          delegation: listed.json.agents[1].delegation,
          blocked_assets: [],
          limits: null,
          daily_budget: { day, used_usd: 0, limit_usd: null, left_usd: null },
          verdicts_24h: { allow: 0, warn: 0, deny: 0, error: 0, records_read: 0, capped: false },
        },
      ],
    });
    // A day later the one-hour delegation has expired, and the fleet no longer lists the agent (tokens last an hour: sign in again).
    clock.now += 86_400_000;
    try {
      const again = await signedIn(operator.account);
      assert.deepEqual((await getJson(`${running.base}/api/v1/fleet`, again.bearer)).json.agents, []);
    } finally {
      clock.now = OPEN_MARKET_MS;
    }
    // Renewed 23 hours on, and read just over 24 hours after the verdicts: they are out of the counts, and the budget is a new day's.
    clock.now = OPEN_MARKET_MS + 23 * HOUR_S * 1000;
    try {
      const again = await signedIn(operator.account);
      const renewed = await register(again, await delegation(agent, operator.account.address, { expiry: Math.floor(clock.now / 1000) + 2 * HOUR_S }));
      assert.equal(renewed.status, 200, renewed.text);
      clock.now = OPEN_MARKET_MS + 24 * HOUR_S * 1000 + 1;
      const listing = await getJson(`${running.base}/api/v1/fleet`, (await signedIn(operator.account)).bearer);
      assert.equal(listing.status, 200, listing.text);
      const later = listing.json.agents;
      assert.deepEqual(later.map((a: any) => [a.agent, a.verdicts_24h, a.daily_budget.day === day, a.daily_budget.used_usd]), [
        [agent.address, { allow: 0, warn: 0, deny: 0, error: 0, records_read: 5, capped: false }, false, 0],
      ]);
    } finally {
      clock.now = OPEN_MARKET_MS;
    }
  });

  it('/metrics counts each deny by a limit under its POLICY_* code, and nothing for a trade the limits let through', async () => {
    const { operator, agent } = await fleetOfOne();
    await configure(operator, agent.address, { blocked_assets: [], limits: { max_trade_usd: 300 } });
    const refusals = async (): Promise<Record<string, number>> => {
      const family = parsePrometheusText((await send('GET', `${running.base}/metrics`)).text).get('guardrail_policy_refusals_total');
      assert.equal(family?.type, 'counter');
      return Object.fromEntries(family!.samples.map((sample) => [sample.labels.code, sample.value]));
    };
    const before = await refusals();
    // 0.5 TSLA is 175.13 USD, under the limit; 1 TSLA is 350.25 USD, over it.
    const trade = sampleTrade({ wallet: agent.address, amount: 0.5 });
    assert.notEqual((await postJson(`${running.base}/api/v1/analyze/free`, trade)).json.decision, 'deny');
    assert.deepEqual(await refusals(), before);
    const denied = await postJson(`${running.base}/api/v1/analyze/free`, { ...trade, amount: 1 });
    assert.match(denied.json.reasons[0], /^POLICY_MAX_TRADE: /);
    assert.deepEqual(await refusals(), { ...before, POLICY_MAX_TRADE: (before.POLICY_MAX_TRADE ?? 0) + 1 });
  });

  it('keeps delegations across a restart: the fleet is listed and its operator still sets limits', async () => {
    const { operator, agent } = await fleetOfOne();
    const dataDir = running.dataDir;
    await running.stop(false);
    running = await start(dataDir);
    const listed = (await getJson(`${running.base}/api/v1/fleet`, operator.bearer)).json;
    assert.deepEqual(listed.agents.map((a: any) => a.agent), [agent.address]);
    const set = await configure(operator, agent.address, { blocked_assets: [], limits: { max_trade_usd: 300 } });
    assert.equal(set.status, 200, set.text);
    const denied = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet: agent.address, amount: 1 }));
    assert.match(denied.json.reasons[0], /^POLICY_MAX_TRADE: /);
  });
});
