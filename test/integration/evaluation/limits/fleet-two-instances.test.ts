// A fleet served by two service processes on one real Redis: a delegation registered on one is in force on the other,
// the listing on either counts the verdicts both made, and an ended delegation is refused by both.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { getJson, postJson, sampleTrade, send } from '../../../support/service.js';
import { useTwoInstancesOnRedis } from '../../../support/two-instances.js';

const pair = useTwoInstancesOnRedis('fleet');

/** Signed in on `base`; the JWT secret is shared, so the token is good on both instances. */
async function bearerOf(base: string, account: PrivateKeyAccount): Promise<Record<string, string>> {
  const nonce = await getJson(`${base}/api/v1/auth/nonce?address=${account.address}`);
  const login = await postJson(`${base}/api/v1/auth/wallet`, { address: account.address, signature: await account.signMessage({ message: nonce.json.message }) });
  assert.equal(login.status, 200, login.text);
  return { authorization: `Bearer ${login.json.access_token}` };
}

describe('a fleet on two instances sharing one Redis (ARCHITECTURE.md "Fleets")', () => {
  it('registered on A, configured and listed on B with the verdicts of both, ended on A and refused again on B', async () => {
    const [operator, agent] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    const operatorBearer = await bearerOf(pair.a.base, operator);
    const chainId = (await getJson(`${pair.a.base}/`)).json.chain.id as number;
    const message = { agent: agent.address, operator: operator.address, expiry: BigInt(Math.floor(Date.now() / 1000) + 3600), nonce: 7n };
    const signature = await agent.signTypedData({
      domain: { name: 'trade-guardrail', version: '1', chainId },
      types: { FleetDelegation: [
        { name: 'agent', type: 'address' }, { name: 'operator', type: 'address' }, { name: 'expiry', type: 'uint64' }, { name: 'nonce', type: 'uint256' },
      ] },
      primaryType: 'FleetDelegation',
      message,
    });
    const body = { ...message, expiry: Number(message.expiry), nonce: '7', signature };
    assert.equal((await postJson(`${pair.a.base}/api/v1/fleet/agents`, body, operatorBearer)).status, 200);
    const set = await postJson(`${pair.b.base}/api/v1/fleet/agents/${agent.address}/config`, { blocked_assets: [], limits: { allowed_sides: ['buy'] } }, operatorBearer);
    assert.equal(set.status, 200, set.text);
    const sell = sampleTrade({ wallet: agent.address, amount: 0.5, side: 'sell' });
    for (const base of [pair.a.base, pair.b.base]) {
      const answer = await postJson(`${base}/api/v1/analyze/free`, sell);
      assert.match(answer.json.reasons[0], /^POLICY_SIDE_NOT_ALLOWED: /, answer.text);
    }
    const listed = await getJson(`${pair.b.base}/api/v1/fleet`, operatorBearer);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.json.agents.map((entry: any) => [entry.agent, entry.verdicts_24h]), [
      [agent.address.toLowerCase(), { allow: 0, warn: 0, deny: 2, error: 0, records_read: 3, capped: false }],
    ]);
    const ended = await send('DELETE', `${pair.a.base}/api/v1/fleet/agents/${agent.address}`, undefined, operatorBearer);
    assert.equal(ended.json.ended, true, ended.text);
    const replayed = await postJson(`${pair.b.base}/api/v1/fleet/agents`, body, operatorBearer);
    assert.deepEqual([replayed.status, replayed.json.code], [403, 'delegation_revoked']);
    assert.equal((await postJson(`${pair.b.base}/api/v1/fleet/agents/${agent.address}/config`, { blocked_assets: [] }, operatorBearer)).json.code, 'agent_not_delegated');
  });
});
