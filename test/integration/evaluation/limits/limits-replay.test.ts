// `audit:replay` re-derives a deny a wallet's own limit gave: the limits and the day's use are in the verdict's recorded facts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evaluateRisk } from '../../../../src/risk/evaluate-risk.js';
import { EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { resolveFacts } from '../../../../src/evaluation/replay/resolve-facts.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;
let denied: { audit_seq: number; reasons: string[] };

async function replay(args: string[]): Promise<{ status: number; json: any }> {
  let out = '';
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
  const status = await runAuditReplay(args, io);
  return { status, json: JSON.parse(out) };
}

before(async () => {
  running = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET_MS });
  const signer = privateKeyToAccount(generatePrivateKey());
  const nonce = await getJson(`${running.base}/api/v1/auth/nonce?address=${signer.address}`);
  const login = await postJson(`${running.base}/api/v1/auth/wallet`, { address: signer.address, signature: await signer.signMessage({ message: nonce.json.message }) });
  const bearer = { authorization: `Bearer ${login.json.access_token}` };
  assert.equal((await postJson(`${running.base}/api/v1/config`, { blocked_assets: [], limits: { daily_notional_usd: 500 } }, bearer)).status, 200);
  const trade = sampleTrade({ wallet: signer.address, amount: 1 });
  assert.notEqual((await postJson(`${running.base}/api/v1/analyze/free`, trade)).json.decision, 'deny');
  denied = (await postJson(`${running.base}/api/v1/analyze/free`, trade)).json;
});
after(() => running.stop());

describe('replay of a policy deny', () => {
  it('reproduces the POLICY_DAILY_BUDGET deny from its facts, and counts the limits change record as one without facts', async () => {
    assert.match(denied.reasons[0]!, /^POLICY_DAILY_BUDGET: 350.25 USD would bring today's use to 700.5 USD/);
    const replayed = await replay([running.dataDir, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED);
    assert.deepEqual([replayed.json.records, replayed.json.reproduced, replayed.json.without_facts, replayed.json.differs], [3, 2, 1, 0]);
  });

  it('keeps in the facts the limits in force and the use the deny was judged on; without them the engine would not deny', async () => {
    // The export lists the shared documents a record's facts name before its own: resolved as replay resolves them.
    const lines = (await (await fetch(`${running.base}/api/v1/audit/facts?from_seq=${denied.audit_seq}&limit=1`)).text()).trim().split('\n');
    const documents = new Map(lines.map((line) => [line.split(' ')[1]!, line.slice(line.indexOf('{'))]));
    const own = lines.at(-1)!;
    assert.deepEqual(JSON.parse(own.slice(own.indexOf('{'))).input.limits, { maxTradeUsd: null, dailyNotionalUsd: 500, allowedAssets: null, allowedSides: null, maxSlippageBps: null });
    // Format 3 facts take the trade and the time from the record that names them.
    const line = (await (await fetch(`${running.base}/api/v1/audit/export?from_seq=${denied.audit_seq}&limit=1`)).text()).trim();
    const resolved = resolveFacts(own.slice(own.indexOf('{')), documents, JSON.parse(line.slice(65)));
    assert.ok(resolved.ok, resolved.ok ? '' : resolved.detail);
    const facts = resolved.facts as any;
    assert.deepEqual(facts.input.limits, { maxTradeUsd: null, dailyNotionalUsd: 500, allowedAssets: null, allowedSides: null, maxSlippageBps: null });
    assert.equal(facts.input.wallet.dailyNotionalUsedUsd, 350.25);
    assert.equal(evaluateRisk(facts.input).reasons[0], denied.reasons[0]);
    const { limits: _limits, ...unlimited } = facts.input;
    assert.notEqual(evaluateRisk(unlimited).decision, 'deny');
  });
});
