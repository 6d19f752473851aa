// A trade's own size against the sell the token-safety check proved, through the running service on the devnet: a trade
// above the sized rung gets SELL_SIZE_UNPROVEN and is no allow, one at or below it does not, the safety document the
// records name keeps the figure, and audit:replay re-derives every verdict (ARCHITECTURE.md "Token safety").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, maxUint256, parseUnits, type Address } from 'viem';
import { webSocketUrlOf } from '../../../src/facts/chain/chain-reads.js';
import { amountAtMost } from '../../../src/risk/amount-grid.js';
import { startDevnet, type Devnet } from '../../../src/tools/devnet/devnet.js';
import { runAuditReplay, EXIT_REPRODUCED } from '../../../src/tools/cli/audit-replay-command.js';
import { writeRegistryFile } from '../../support/chain-support.js';
import { swapHelperAbi } from '../../support/devnet-abis.js';
import { publicClientFor, walletClientFor } from '../../support/devnet-helpers.js';
import { callMcpTool } from '../../support/mcp-client.js';
import { postJson, startTestService, type TestService } from '../../support/service.js';

// A Tuesday during the NYSE session, so no MARKET_CLOSED points; chain facts follow blocks, not this clock.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
/** The renounced hostile token (a plain ERC-20 whose check is safe), listed with no feed, so its pool prices it. */
const SYMBOL = 'RNCD';

let devnet: Devnet;
let running: TestService;
let dir: string;
let token: Address;
/** The sized sell the check proved, in base units, and as the service reads it in tokens. */
let provenUnits: bigint;
let proven: number;
/** The audit seq of every verdict this file asked for. */
const seqs: number[] = [];
let walletSeq = 0;
const freshWallet = () => `0x${(0x5e11000 + walletSeq++).toString(16).padStart(40, '0')}`;

/**
 * The deployer sells 100,000 RNCD into its 100,000 USD pool first: the pool then holds about 200,000 RNCD at
 * about 0.25 USD, so its sized rung (5% of the token's side, about 10,000 RNCD) is worth about 2,500 USD, and a
 * trade above it stays under Tier 1's 5,000 USD ceiling and its near-ceiling share.
 */
async function deepenTokenSide(): Promise<void> {
  const pool = devnet.pools[SYMBOL]!;
  const wallet = walletClientFor(devnet, devnet.deployerPrivateKey);
  const client = publicClientFor(devnet);
  const approve = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [devnet.contracts.swapHelper, maxUint256] });
  assert.equal((await client.waitForTransactionReceipt({ hash: approve })).status, 'success');
  const args = [devnet.contracts.poolManager, pool, pool.currency0 === token, parseUnits('100000', 18), 0n, devnet.deployer] as const;
  const swap = await wallet.writeContract({ address: devnet.contracts.swapHelper, abi: swapHelperAbi, functionName: 'swapExactIn', args });
  assert.equal((await client.waitForTransactionReceipt({ hash: swap })).status, 'success');
}

before(async () => {
  devnet = await startDevnet();
  token = devnet.contracts.hostile.renounced;
  await deepenTokenSide();
  dir = mkdtempSync(join(tmpdir(), 'sell-size-'));
  const listed = { symbol: SYMBOL, contract_address: token, decimals: 18, is_native: false, price_feed: null, default_price_usd: null };
  const file = writeRegistryFile(devnet, dir, { assets: [...devnet.registry.assets, listed] });
  running = await startTestService(
    { RPC_URL: devnet.rpcUrl, RPC_WS_URL: webSocketUrlOf(devnet.rpcUrl), REGISTRY_FILE: file, RATE_LIMITS: 'off' },
    undefined,
    { now: () => OPEN_MARKET },
  );
});

after(async () => {
  await running?.stop();
  await devnet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const trade = (amount: number, side: 'buy' | 'sell' = 'buy') => ({
  wallet: freshWallet(), asset: SYMBOL, contract_address: token, side, amount, max_slippage_bps: 10_000,
});

async function evaluate(amount: number, side: 'buy' | 'sell' = 'buy'): Promise<Record<string, any>> {
  const answer = await callMcpTool(running.base, 'evaluate_trade', trade(amount, side));
  assert.equal(answer.isError, false, JSON.stringify(answer.structured));
  seqs.push(answer.structured.audit_seq as number);
  return answer.structured;
}

const unprovenReason = (reasons: string[]) => reasons.find((text) => text.startsWith('SELL_SIZE_UNPROVEN: '));

describe('a trade larger than the sell the token-safety check proved', () => {
  it('the check sells a share of the pool at once, and the result names the amount', async () => {
    const { status, json } = await postJson(`${running.base}/api/v1/token-safety`, { contract_address: token });
    assert.equal(status, 200);
    assert.ok(json.severity === 'safe' || json.severity === 'warn', JSON.stringify(json.risk_factors));
    assert.equal(json.sell_simulation.sized_sell_ok, true, json.sell_simulation.detail);
    provenUnits = BigInt(json.sell_simulation.sized_sell_amount);
    proven = amountAtMost(provenUnits, 18);
    // About 5% of the 200,000 RNCD the pool holds after the deployer's sell.
    assert.ok(proven > 9_000 && proven < 11_000, String(proven));
  });

  it('a buy above it on MCP (max_slippage_bps 10000) gets SELL_SIZE_UNPROVEN and is a warn, not an allow', async () => {
    const amount = Math.ceil(proven * 1.2);
    const verdict = await evaluate(amount);
    assert.equal(verdict.decision, 'warn', JSON.stringify(verdict.reasons));
    const words = unprovenReason(verdict.reasons);
    assert.ok(words, JSON.stringify(verdict.reasons));
    const match = /^SELL_SIZE_UNPROVEN: a sell of ([\d,.]+) RNCD at once was not shown to go through: the token-safety check sold at most ([\d,.]+) at once$/.exec(words);
    assert.ok(match, words);
    assert.equal(Number(match[1]!.replace(/,/g, '')), amount);
    assert.equal(Number(match[2]!.replace(/,/g, '')), proven);
    // No more than the check sold: the figure rounds down, never up.
    assert.ok(parseUnits(match[2]!.replace(/,/g, ''), 18) <= provenUnits, match[2]);
    // The amount that would be allowed is at most what the check sold.
    const allowed = verdict.max_allowed_amount;
    assert.ok(typeof allowed === 'number' && allowed > 0 && allowed <= proven, String(allowed));
  });

  it('a sell above it is judged the same: the seller sells that size now', async () => {
    const verdict = await evaluate(Math.ceil(proven * 1.1), 'sell');
    assert.notEqual(verdict.decision, 'allow', JSON.stringify(verdict.reasons));
    assert.ok(unprovenReason(verdict.reasons), JSON.stringify(verdict.reasons));
  });

  it('a buy at or below it does not get the reason and is allowed', async () => {
    for (const amount of [proven, Math.floor(proven / 2)]) {
      const verdict = await evaluate(amount);
      assert.equal(unprovenReason(verdict.reasons), undefined, JSON.stringify(verdict.reasons));
      assert.equal(verdict.decision, 'allow', `${amount}: ${JSON.stringify(verdict.reasons)}`);
    }
  });

  it("the safety document the records name keeps the figure, and audit:replay re-derives every verdict", async () => {
    const text = await (await fetch(`${running.base}/api/v1/audit/facts?from_seq=${Math.min(...seqs)}&limit=${seqs.length}`)).text();
    const documents = text.trim().split('\n').map((line) => JSON.parse(line.slice(line.indexOf(' ', line.indexOf(' ') + 1) + 1)));
    const safety = documents.filter((document) => document.kind === 'safety').map((document) => document.fact);
    assert.deepEqual(safety.map((fact) => fact.sellProvenAmount), [proven], text.slice(0, 600));
    let out = '';
    const io = { stdout: { write: (chunk: string) => (out += chunk) }, stderr: { write: () => true, isTTY: false } };
    const status = await runAuditReplay([running.base, '--json'], io);
    const report = JSON.parse(out);
    assert.equal(status, EXIT_REPRODUCED, out);
    assert.equal(report.records, seqs.length, out);
    assert.equal(report.reproduced, report.records, out);
  });
});
