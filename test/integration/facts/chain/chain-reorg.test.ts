// A revert on the devnet takes back service tokens a wallet had received: the next evaluation sees the chain as it is now, never the reverted holdings (issue 39).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DemoWallet } from '../../../../src/tools/devnet/devnet.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { walletClientFor } from '../../../support/devnet-helpers.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { getJson, postJson, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';

let running: TestService;
let client: PublicClient;

before(async () => {
  // REGISTRY_FILE unset: the embedded devnet is the chain; the clock stays in the NYSE session.
  running = await startTestService({ REGISTRY_FILE: '' }, undefined, { now: () => OPEN_MARKET_MS });
  client = createChainClient(running.service.chain.devnet!.rpcUrl);
  // Blocks only on transactions from here: a revert then announces no new block, and the test names each block.
  await client.request({ method: 'evm_setIntervalMining' as never, params: [0] as never });
  await client.request({ method: 'evm_setAutomine' as never, params: [true] as never });
});
after(() => running.stop());

const wallets = () => running.service.chain.devnet!.wallets;
const byTokens = (tokens: number) => wallets().find((wallet) => wallet.serviceTokens === tokens) as DemoWallet;

async function bearerFor(wallet: DemoWallet): Promise<Record<string, string>> {
  const nonce = await getJson(`${running.base}/api/v1/auth/nonce?address=${wallet.address}`);
  const signature = await privateKeyToAccount(wallet.privateKey).signMessage({ message: nonce.json.message });
  const signed = await postJson(`${running.base}/api/v1/auth/wallet`, { address: wallet.address, signature });
  assert.equal(signed.status, 200, signed.text);
  return { authorization: `Bearer ${signed.json.access_token}` };
}

/** The signed-in wallet's verdict for a 1-share TSLA buy: its tier is what its holdings earn at the head. */
async function evaluate(wallet: DemoWallet, bearer: Record<string, string>): Promise<{ decision: string; tier: number; max_trade_usd: number }> {
  const tsla = running.service.registry.bySymbol('TSLA')!;
  const verdict = await postJson(`${running.base}/api/v1/analyze/trade`,
    { wallet: wallet.address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 1 }, bearer);
  assert.equal(verdict.status, 200, verdict.text);
  return { decision: verdict.json.decision, tier: verdict.json.tier, max_trade_usd: verdict.json.max_trade_usd };
}

/** The head the service evaluates at, as GET /status.json reports it. */
async function serviceHead(): Promise<{ live: boolean; number: number }> {
  return (await getJson(`${running.base}/status.json`)).json.components.chain.head;
}

describe('a chain revert under held facts', () => {
  it('drops the holdings read at the reverted block: the wallet is back at Tier 1 at the evaluation sent right after the revert, and stays there on a new block at that height', async () => {
    const holder = byTokens(5000);
    const receiver = byTokens(0);
    const bearer = await bearerFor(receiver);
    assert.deepEqual(await evaluate(receiver, bearer), { decision: 'allow', tier: 1, max_trade_usd: 5000 });

    // The snapshot is taken before the tokens arrive; the service sees them and evaluates at Tier 3.
    const snapshot = (await client.request({ method: 'evm_snapshot' as never })) as Hex;
    // cacheTime 0: viem answers getBlockNumber from a 4 s cache that waiting for the receipt fills,
    // so after the revert it would still say the reverted block's number.
    const before = await client.getBlockNumber({ cacheTime: 0 });
    const token = running.service.registry.serviceToken!.address as Address;
    const hash = await walletClientFor(running.service.chain.devnet!, holder.privateKey).writeContract({
      address: token, abi: erc20Abi, functionName: 'transfer', args: [receiver.address, 5000n * 10n ** 18n],
    });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    await running.service.chain.reads!.head.reached(receipt.blockNumber);
    assert.deepEqual(await evaluate(receiver, bearer), { decision: 'allow', tier: 3, max_trade_usd: 100000 });

    // The revert takes the block back and announces no new one. The evaluation sent at once, before the head watch's
    // next probe could notice, already sees the shorter chain: no Tier 3 from tokens no longer on it.
    assert.equal(await client.request({ method: 'evm_revert' as never, params: [snapshot] as never }), true);
    assert.deepEqual(await evaluate(receiver, bearer), { decision: 'allow', tier: 1, max_trade_usd: 5000 });
    assert.equal(await client.getBlockNumber({ cacheTime: 0 }), before);
    await pollUntil('the service evaluates at the block the chain was reverted to', serviceHead, (head) => head.live && head.number === Number(before), 15_000);

    // A new block at the reverted block's height is another block: still no tokens.
    await client.request({ method: 'evm_mine' as never });
    const mined = await client.getBlock({ blockTag: 'latest' });
    assert.equal(mined.number, receipt.blockNumber);
    await pollUntil('the service evaluates at the block mined after the revert', serviceHead, (head) => head.live && head.number === Number(mined.number), 15_000);
    assert.deepEqual(await evaluate(receiver, bearer), { decision: 'allow', tier: 1, max_trade_usd: 5000 });
  });
});
