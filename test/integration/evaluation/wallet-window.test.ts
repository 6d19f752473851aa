// Proven callers keep their window (ARCHITECTURE.md "Proven callers keep their window"): unproven
// evaluations naming a wallet cannot take the evaluations of the wallet's own bearer or payments.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { callMcpTool } from '../../support/mcp-client.js';
import { PaidWorld, payWith } from '../../support/paid-world.js';
import { getJson, postJson, type TestService } from '../../support/service.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { signPayment } from '../../support/x402-payer.js';

const tempDir = useTempDirs('wallet-window-');
let world: PaidWorld;
let service: TestService;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  // Tier 1 admits 10 evaluations per window, Tier 2 (paid) 25: the defaults.
  service = await world.service();
});
after(async () => {
  await service?.stop();
  await world?.close();
});

async function bearerFor(privateKey: Hex): Promise<Record<string, string>> {
  const account = privateKeyToAccount(privateKey);
  const nonce = await getJson(`${service.base}/api/v1/auth/nonce?address=${account.address}`);
  const signature = await account.signMessage({ message: nonce.json.message });
  const login = await postJson(`${service.base}/api/v1/auth/wallet`, { address: account.address, signature });
  assert.equal(login.status, 200, login.text);
  return { authorization: `Bearer ${login.json.access_token}` };
}

const windowReason = (reasons: string[]) => reasons.find((text) => text.startsWith('RATE_WINDOW_NEAR_LIMIT'));

describe('a flood of unproven evaluations naming a wallet', () => {
  it("leaves the wallet's bearer and paid evaluations answered, scored on its own use alone", async () => {
    // Demo wallet A holds no service tokens: Tier 1, 10 evaluations per window.
    const owner = world.devnet.wallets[0];
    const trade = world.trade({ wallet: owner.address, amount: 1 });
    const headers = await bearerFor(owner.privateKey);
    // Anyone can name A on analyze/free and MCP: ten fill the shared window, then both channels are refused.
    for (let i = 0; i < 10; i++) assert.equal((await postJson(`${service.base}/api/v1/analyze/free`, trade)).status, 200);
    assert.equal((await postJson(`${service.base}/api/v1/analyze/free`, trade)).status, 429);
    const viaMcp = await callMcpTool(service.base, 'evaluate_trade', trade);
    assert.equal(viaMcp.isError, true);
    assert.equal(viaMcp.structured.code, 'rate_limited');

    // A's own bearer calls: answered, and the score's window signal counts only A's own calls.
    const first = await postJson(`${service.base}/api/v1/analyze/trade`, trade, headers);
    assert.equal(first.status, 200, first.text);
    assert.equal(windowReason(first.json.reasons), undefined, first.text);
    // A's own payment (payer A, wallet A): answered at Tier 2, nothing taken by the flood.
    const paid = await payWith(service.base, trade, await signPayment(owner.privateKey, await world.challenge(service.base)));
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.tier, 2);
    assert.notEqual(paid.headers.get('payment-response'), null);

    // The proven window is A's own and has the tier's size: eight more bearer calls (ten with the two above), the last two near the limit.
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await postJson(`${service.base}/api/v1/analyze/trade`, trade, headers));
    assert.deepEqual(answers.map((answer) => answer.status), Array(8).fill(200));
    assert.equal(windowReason(answers[7].json.reasons), 'RATE_WINDOW_NEAR_LIMIT: 10 of 10 evaluations used in the current 60 s window');
    const over = await postJson(`${service.base}/api/v1/analyze/trade`, trade, headers);
    assert.equal(over.status, 429, over.text);
  });
  // A payment from another payer proves nothing about the wallet: x402-paid.test.ts holds that it is refused by the shared window.
});
