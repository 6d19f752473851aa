// The read batcher on a real devnet: reads queued while calls are out gather into the next call, and each caller gets its own results.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Address, PublicClient } from 'viem';
import { balanceOfRead } from '../../../../src/facts/chain/multicall.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { ReadBatcher } from '../../../../src/facts/chain/read-batcher.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { CountingProxy } from '../../../support/chain-support.js';

let devnet: Devnet;
let proxy: CountingProxy;
let client: PublicClient;

before(async () => {
  devnet = await startDevnet({ blockTimeSeconds: 0 });
  proxy = await CountingProxy.start(devnet.rpcUrl);
  client = createChainClient(proxy.url);
});

after(async () => {
  await proxy?.close();
  await devnet?.close();
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ReadBatcher', () => {
  it('sends the reads of the turns that came while a call was out as one call, each caller its own balances', async () => {
    const multicall3 = devnet.contracts.multicall3;
    const token = devnet.contracts.serviceToken;
    const block = await client.getBlockNumber();
    const batcher = new ReadBatcher(client, multicall3, 1_500, 1);
    // A funded devnet wallet beside addresses that hold nothing: the answers must not be swapped.
    const funded = devnet.wallets[devnet.wallets.length - 1].address;
    const holders = [funded, ...Array.from({ length: 9 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)];
    proxy.reset();
    const answers: Promise<unknown>[] = [];
    for (const holder of holders) {
      answers.push(batcher.read([balanceOfRead(token, holder)], `balance of ${holder}`, block));
      await turn();
    }
    const results = (await Promise.all(answers)) as { ok: boolean; value: bigint }[][];
    await batcher.idle();
    // Ten turns, one call out at a time: the first turn's call, then the rest gathered while it was out.
    const calls = proxy.count('eth_call');
    assert.ok(calls < holders.length / 2, `${calls} eth_calls for ${holders.length} turns of reads`);
    const direct = await Promise.all(holders.map((holder) => client.readContract({
      address: token, abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] }],
      functionName: 'balanceOf', args: [holder as Address], blockNumber: block,
    })));
    assert.deepEqual(results.map(([result]) => result.value), direct);
    assert.ok(direct[0] > 0n, 'the funded wallet holds service tokens');
  });
});
