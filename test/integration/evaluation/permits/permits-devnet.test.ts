// Trade permits end to end: the service signs them, the devnet's TradePermitGuard enforces them on real v4 swaps.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createTestClient, erc20Abi, http, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Devnet } from '../../../../src/tools/devnet/devnet.js';
import type { SignedPermit } from '../../../../src/evaluation/permits/trade-permit.js';
import { TRADE_PERMIT_TYPES } from '../../../../src/evaluation/permits/trade-permit.js';
import { guardedSwapRouterAbi, tradePermitGuardAbi } from '../../../support/devnet-abis.js';
import { revertName } from '../../../support/devnet-driver.js';
import { publicClientFor, walletClientFor } from '../../../support/devnet-helpers.js';
import { Verdict } from '../../../../src/schemas/trade.js';
import { assertConforms } from '../../../support/conforms.js';
import { callMcpTool } from '../../../support/mcp-client.js';
import { getJson, postJson, startTestService, type TestService } from '../../../support/service.js';
import { payingFetch } from '../../../support/x402-payer.js';

const execFileAsync = promisify(execFile);
const EXAMPLE = fileURLToPath(new URL('../../../../../examples/permit-swap.mjs', import.meta.url));
let running: TestService;
let devnet: Devnet;
let trader: { address: Address; privateKey: Hex };

before(async () => {
  // Real time: the guard compares a permit's expiry with the chain's block time.
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_WALLET_TIER1: '100' });
  devnet = running.service.chain.devnet!;
  trader = devnet.wallets[0]!;
  for (const symbol of ['TSLA', 'NVDA']) {
    const hash = await walletClientFor(devnet, trader.privateKey).writeContract({
      address: devnet.pools[symbol]!.token, abi: erc20Abi, functionName: 'approve', args: [devnet.contracts.guardedSwapRouter, maxUint256],
    });
    await publicClientFor(devnet).waitForTransactionReceipt({ hash });
  }
});
after(() => running.stop());

async function permitFor(symbol: string, amount: number, side: 'buy' | 'sell' = 'sell'): Promise<SignedPermit> {
  const token = devnet.pools[symbol]!.token;
  const verdict = (await postJson(`${running.base}/api/v1/analyze/free`, { wallet: trader.address, asset: symbol, contract_address: token, side, amount, permit: true })).json;
  assert.equal(verdict.decision, 'allow', JSON.stringify(verdict.reasons));
  assertConforms(Verdict, verdict);
  return verdict.permit as SignedPermit;
}

function onChain(permit: SignedPermit) {
  const m = permit.message;
  return {
    ...m, wallet: m.wallet as Address, token: m.token as Address, auditHash: m.auditHash as Hex,
    maxAmount: BigInt(m.maxAmount), maxNotionalUsdCents: BigInt(m.maxNotionalUsdCents), expiry: BigInt(m.expiry), auditSeq: BigInt(m.auditSeq), nonce: BigInt(m.nonce),
  };
}

/** Sells `amount` (token units) of the pool's token for stablecoin through the router, under `permit`. */
async function sell(symbol: string, amount: string, permit: SignedPermit, signature: Hex = permit.signature as Hex) {
  const pool = devnet.pools[symbol]!;
  const wallet = walletClientFor(devnet, trader.privateKey);
  const args = [onChain(permit), signature, devnet.contracts.poolManager, pool, pool.currency0 === pool.token, parseUnits(amount, 18), 0n] as const;
  const hash = await wallet.writeContract({ address: devnet.contracts.guardedSwapRouter, abi: guardedSwapRouterAbi, functionName: 'swapWithPermit', args, gas: 1_000_000n });
  return publicClientFor(devnet).waitForTransactionReceipt({ hash });
}

async function revertOf(attempt: Promise<unknown>): Promise<string | undefined> {
  try {
    await attempt;
  } catch (error) {
    return revertName(error);
  }
  assert.fail('the swap went through');
}

/** The same call as `sell`, simulated, so the revert comes back decoded. */
function simulateSell(symbol: string, amount: string, permit: SignedPermit, signature: Hex = permit.signature as Hex) {
  const pool = devnet.pools[symbol]!;
  const args = [onChain(permit), signature, devnet.contracts.poolManager, pool, pool.currency0 === pool.token, parseUnits(amount, 18), 0n] as const;
  return publicClientFor(devnet).simulateContract({ address: devnet.contracts.guardedSwapRouter, abi: guardedSwapRouterAbi, functionName: 'swapWithPermit', args, account: trader.address });
}

describe('trade permits on the devnet', () => {
  it('the signer the documents publish is the one the devnet guard trusts', async () => {
    const published = (await getJson(`${running.base}/.well-known/permit-signer.json`)).json;
    assert.equal(published.guard, devnet.contracts.permitGuard);
    const trusted = await publicClientFor(devnet).readContract({ address: devnet.contracts.permitGuard, abi: tradePermitGuardAbi, functionName: 'signer' });
    assert.equal(published.address, trusted);
    assert.deepEqual((await getJson(`${running.base}/`)).json.permit_signer, published);
  });

  it('an allow with a permit: the swap goes through and spends the nonce; the same permit again is refused', async () => {
    const permit = await permitFor('TSLA', 1);
    assert.equal(permit.message.maxAmount, String(10n ** 18n));
    const before = await publicClientFor(devnet).readContract({ address: devnet.pools.TSLA!.token, abi: erc20Abi, functionName: 'balanceOf', args: [trader.address] });
    assert.equal((await sell('TSLA', '1', permit)).status, 'success');
    const afterSwap = await publicClientFor(devnet).readContract({ address: devnet.pools.TSLA!.token, abi: erc20Abi, functionName: 'balanceOf', args: [trader.address] });
    assert.equal(before - afterSwap, 10n ** 18n);
    assert.equal(await publicClientFor(devnet).readContract({ address: devnet.contracts.permitGuard, abi: tradePermitGuardAbi, functionName: 'nonceUsed', args: [BigInt(permit.message.nonce)] }), true);
    assert.equal(await revertOf(simulateSell('TSLA', '1', permit)), 'PermitNonceUsed');
  });

  it('without a permit, for a larger amount, another token, the other side or another signer: each reverts by name', async () => {
    const permit = await permitFor('TSLA', 1);
    assert.equal(await revertOf(simulateSell('TSLA', '1', permit, '0x')), 'PermitMissing');
    assert.equal(await revertOf(simulateSell('TSLA', '1.000000000000000001', permit)), 'PermitAmountExceeded');
    assert.equal(await revertOf(simulateSell('NVDA', '1', permit)), 'PermitTokenMismatch');
    const buy = await permitFor('TSLA', 1, 'buy');
    assert.equal(await revertOf(simulateSell('TSLA', '1', buy)), 'PermitSideMismatch');
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await stranger.signTypedData({
      domain: { ...permit.domain, verifyingContract: permit.domain.verifyingContract as Address },
      types: TRADE_PERMIT_TYPES, primaryType: 'TradePermit', message: onChain(permit),
    });
    assert.equal(await revertOf(simulateSell('TSLA', '1', permit, forged)), 'PermitSignatureInvalid');
    // The permit itself was untouched by the refusals: it still buys its one trade.
    assert.equal((await sell('TSLA', '1', permit)).status, 'success');
  });

  it('only the permit\'s wallet or the router spends it: a third wallet\'s consume reverts and the permit still buys its swap', async () => {
    const guard = devnet.contracts.permitGuard;
    const permit = await permitFor('TSLA', 1);
    const stranger = devnet.wallets[2]!;
    const consume = (wallet: Address) => [onChain(permit), permit.signature as Hex, wallet, permit.message.token as Address, 1, 0n] as const;
    // Sent for real, as a front-runner would: it reverts on chain and spends nothing.
    const hash = await walletClientFor(devnet, stranger.privateKey).writeContract({ address: guard, abi: tradePermitGuardAbi, functionName: 'consume', args: consume(trader.address), gas: 300_000n });
    assert.equal((await publicClientFor(devnet).waitForTransactionReceipt({ hash })).status, 'reverted');
    const simulate = (wallet: Address) => publicClientFor(devnet).simulateContract({ address: guard, abi: tradePermitGuardAbi, functionName: 'consume', args: consume(wallet), account: stranger.address });
    assert.equal(await revertOf(simulate(trader.address)), 'PermitCallerNotAllowed');
    assert.equal(await revertOf(simulate(stranger.address)), 'PermitWalletMismatch');
    assert.equal(await publicClientFor(devnet).readContract({ address: guard, abi: tradePermitGuardAbi, functionName: 'nonceUsed', args: [BigInt(permit.message.nonce)] }), false);
    assert.equal((await sell('TSLA', '1', permit)).status, 'success');
    assert.equal(await publicClientFor(devnet).readContract({ address: guard, abi: tradePermitGuardAbi, functionName: 'router' }), devnet.contracts.guardedSwapRouter);
  });

  it('the permit\'s own wallet may consume it directly, as a smart wallet does before its swap', async () => {
    const permit = await permitFor('TSLA', 1);
    const args = [onChain(permit), permit.signature as Hex, trader.address, permit.message.token as Address, 1, 10n ** 18n] as const;
    const hash = await walletClientFor(devnet, trader.privateKey).writeContract({ address: devnet.contracts.permitGuard, abi: tradePermitGuardAbi, functionName: 'consume', args, gas: 300_000n });
    assert.equal((await publicClientFor(devnet).waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await revertOf(simulateSell('TSLA', '1', permit)), 'PermitNonceUsed');
  });

  it('the same permit through MCP; a warn or deny carries none', async () => {
    const token = devnet.pools.TSLA!.token;
    const answer = await callMcpTool(running.base, 'evaluate_trade', { wallet: trader.address, asset: 'TSLA', contract_address: token, side: 'sell', amount: 1, permit: true });
    assert.equal(answer.structured.decision, 'allow');
    const permit = answer.structured.permit as SignedPermit;
    assert.equal(permit.message.auditSeq, answer.structured.audit_seq);
    assert.equal(permit.message.auditHash, `0x${answer.structured.audit_hash}`);
    const deny = (await postJson(`${running.base}/api/v1/analyze/free`, { wallet: trader.address, asset: 'TSLA', contract_address: token, side: 'sell', amount: 1000, permit: true })).json;
    assert.equal(deny.decision, 'deny');
    assert.equal('permit' in deny, false);
  });

  it('no permit on a price the service flags: the devnet\'s three-day-old MSFT round denies a permit request, not the trade', async () => {
    const msft = { wallet: trader.address, asset: 'MSFT', contract_address: devnet.pools.MSFT!.token, side: 'sell', amount: 1 };
    const asked = (await postJson(`${running.base}/api/v1/analyze/free`, { ...msft, permit: true })).json;
    assert.equal(asked.decision, 'deny', JSON.stringify(asked));
    assert.ok(asked.reasons.includes('PERMIT_ON_FLAGGED_PRICE: a TradePermit was asked for, but the oracle round is stale; no permit is signed on a flagged price'), JSON.stringify(asked.reasons));
    assert.equal('permit' in asked, false);
    // The stale round is no quote beside the live pool, and without a permit the flag alone denies nothing.
    const plain = (await postJson(`${running.base}/api/v1/analyze/free`, msft)).json;
    assert.equal(plain.price_source, 'venue_v4');
    assert.notEqual(plain.decision, 'deny', JSON.stringify(plain.reasons));
    assert.ok(plain.reasons.includes('PRICE_STALE: the oracle round is older than its staleness limit'), JSON.stringify(plain.reasons));
  });

  it('a paid x402 evaluation carries a permit too, and it buys its swap', async () => {
    const body = { wallet: trader.address, asset: 'TSLA', contract_address: devnet.pools.TSLA!.token, side: 'sell', amount: 2, permit: true };
    const answer = await payingFetch(trader.privateKey, devnet.contracts.stablecoin)(`${running.base}/api/x402/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const verdict = (await answer.json()) as Record<string, any>;
    assert.equal(answer.status, 200, JSON.stringify(verdict));
    assert.deepEqual([verdict.decision, verdict.tier, verdict.permit.message.auditSeq], ['allow', 2, verdict.audit_seq]);
    assert.equal((await sell('TSLA', '2', verdict.permit)).status, 'success');
  });

  it('the example of docs/enforcing-on-chain.md (examples/permit-swap.mjs) sells through the guard', async () => {
    const env = {
      ...process.env, BASE_URL: running.base, RPC_URL: devnet.rpcUrl, TRADER_KEY: devnet.wallets[1]!.privateKey,
      ROUTER: devnet.contracts.guardedSwapRouter, POOL_MANAGER: devnet.contracts.poolManager, STABLECOIN: devnet.contracts.stablecoin,
    };
    const { stdout } = await execFileAsync(process.execPath, [EXAMPLE], { env });
    assert.match(stdout, /^success audit_seq \d+ tx 0x[0-9a-f]{64}$/m);
  });

  it('the key lives in DATA_DIR and is the published signer', async () => {
    const key = readFileSync(join(running.dataDir, 'permit-signer-key'), 'utf8').trim() as Hex;
    assert.equal(privateKeyToAccount(key).address, (await getJson(`${running.base}/.well-known/permit-signer.json`)).json.address);
  });
  // Last: it moves the chain's clock past real time.
  it('an expired permit reverts with PermitExpired', async () => {
    const permit = await permitFor('TSLA', 1);
    const testClient = createTestClient({ mode: 'anvil', chain: devnet.chain, transport: http(devnet.rpcUrl) });
    await testClient.increaseTime({ seconds: running.service.config.permits.ttlSeconds + 5 });
    await testClient.mine({ blocks: 1 });
    assert.equal(await revertOf(simulateSell('TSLA', '1', permit)), 'PermitExpired');
  });

});
