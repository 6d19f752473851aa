// The read batcher on a real devnet: reads queued while calls are out gather into the next call, each caller gets its own
// results, and balances go through the deployless balance reader, whose committed creation code is its source's.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Address, PublicClient } from 'viem';
import { BALANCES_READER_CODE } from '../../../../src/facts/chain/balances-reader-code.js';
import { callBalances, MAX_BALANCES_PER_CALL } from '../../../../src/facts/chain/balance-reads.js';
import { balanceOfRead, callAggregate3, nativeBalanceRead, type ContractRead } from '../../../../src/facts/chain/multicall.js';
import { ChainUnavailableError } from '../../../../src/facts/chain/errors.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { freePort } from '../../../../src/tools/devnet/free-port.js';
import { MIN_BALANCE_HOLDERS, ReadBatcher } from '../../../../src/facts/chain/read-batcher.js';
import { compileContracts } from '../../../../src/tools/devnet/compile.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { CountingProxy } from '../../../support/chain-support.js';
import { waitUntil } from '../../../support/wait-until.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

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

  it('keeps the reads of later turns for one call after the call out answers, while that call is younger than the bound', async () => {
    const token = devnet.contracts.serviceToken;
    const block = await client.getBlockNumber();
    // Two calls may be out, as by default; the bound is one no answer takes here.
    const batcher = new ReadBatcher(client, devnet.contracts.multicall3, 1_500, 2, 60_000);
    const funded = devnet.wallets[devnet.wallets.length - 1].address;
    const holders = [funded, ...Array.from({ length: 5 }, (_, i) => `0x${(i + 0x100).toString(16).padStart(40, '0')}`)];
    proxy.reset();
    const release = proxy.hold();
    const answers: Promise<ReadResultList>[] = [];
    try {
      answers.push(batcher.read([balanceOfRead(token, holders[0])], 'first', block));
      await waitUntil(() => proxy.calls.length >= 1, 'the first call reached the node');
      // Five more turns while the node has not answered: a second call would carry the first of them alone.
      for (const holder of holders.slice(1)) {
        answers.push(batcher.read([balanceOfRead(token, holder)], `balance of ${holder}`, block));
        await turn();
      }
    } finally {
      release();
    }
    const results = await Promise.all(answers);
    await batcher.idle();
    assert.equal(proxy.count('eth_call'), 2, 'the first turn\'s call, then one call for the five turns after it');
    assert.ok((results[0][0] as { value: bigint }).value > 0n, 'the funded wallet holds service tokens');
    assert.deepEqual(results.slice(1).map(([result]) => result), holders.slice(1).map(() => ({ ok: true, value: 0n })));
  });

  it('sends a second call beside one the node is slow to answer, once that one is older than the bound', async () => {
    const token = devnet.contracts.serviceToken;
    const block = await client.getBlockNumber();
    const batcher = new ReadBatcher(client, devnet.contracts.multicall3, 1_500, 2, 20);
    const holders = [`0x${'0'.repeat(37)}201`, `0x${'0'.repeat(37)}202`];
    proxy.reset();
    const release = proxy.hold();
    let answers: Promise<ReadResultList>[];
    try {
      const first = batcher.read([balanceOfRead(token, holders[0])], 'first', block);
      await waitUntil(() => proxy.calls.length >= 1, 'the first call reached the node');
      const second = batcher.read([balanceOfRead(token, holders[1])], 'second', block);
      // The first call is still unanswered: the second read must not wait for it.
      await waitUntil(() => proxy.calls.length >= 2, 'the second call reached the node');
      answers = [first, second];
    } finally {
      release();
    }
    assert.deepEqual((await Promise.all(answers)).map(([result]) => result), [{ ok: true, value: 0n }, { ok: true, value: 0n }]);
    await batcher.idle();
    assert.equal(proxy.count('eth_call'), 2);
  });
});

type ReadResultList = Awaited<ReturnType<ReadBatcher['read']>>;

/** A funded demo wallet, two that hold nothing, every registry token, the native coin, and two "tokens" that cannot answer balanceOf. */
function mixedReads(): ContractRead[] {
  const holders = [devnet.wallets[devnet.wallets.length - 1].address, `0x${'0'.repeat(39)}7`, devnet.wallets[0].address, devnet.wallets[1].address];
  const tokens = [devnet.contracts.serviceToken, devnet.contracts.stablecoin, ...devnet.registry.assets.filter((asset) => !asset.is_native).map((asset) => asset.contract_address as Address)];
  const reads: ContractRead[] = [];
  for (const holder of holders) {
    for (const token of tokens) reads.push(balanceOfRead(token, holder));
    reads.push(nativeBalanceRead(devnet.contracts.multicall3, holder));
    // No code there (an account), and a contract without balanceOf: neither is a balance.
    reads.push(balanceOfRead(devnet.deployer, holder), balanceOfRead(devnet.contracts.poolManager, holder));
  }
  // The same balance asked twice gets the same answer twice.
  reads.push(balanceOfRead(devnet.contracts.serviceToken, holders[0]));
  return reads;
}

describe('the deployless balance reader', () => {
  it('is committed as the creation code its source compiles to', async () => {
    const { artifacts } = await compileContracts({ root: ROOT, cacheDir: process.env.DEVNET_CACHE_DIR ?? join(ROOT, '.cache', 'solc') });
    assert.equal(BALANCES_READER_CODE, artifacts.BalancesReader.bytecode, 'contracts/utils/BalancesReader.sol changed: run `npm run build && node scripts/balances-reader-code.mjs`');
  });

  it('answers every balance as aggregate3 does, a failed read as not read, in one eth_call', async () => {
    const block = await client.getBlockNumber();
    const reads = mixedReads();
    const expected = await callAggregate3(client, devnet.contracts.multicall3, reads, block);
    proxy.reset();
    const answered = await callBalances(client, reads.map((read) => read.balance!), block);
    assert.equal(proxy.count('eth_call'), 1);
    assert.deepEqual(answered, expected);
    assert.ok(expected.some((result) => result.ok && (result.value as bigint) > 0n), 'some balance is not zero');
    assert.equal(expected.filter((result) => !result.ok).length, 8, 'the account and the contract without balanceOf, for each holder');
  });

  it('goes through the read batcher beside other reads, each caller its own results', async () => {
    const block = await client.getBlockNumber();
    const reads = mixedReads();
    const other: ContractRead = { address: devnet.contracts.multicall3, abi: [{ type: 'function', name: 'getBlockNumber', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256' }] }], functionName: 'getBlockNumber' };
    const expected = await callAggregate3(client, devnet.contracts.multicall3, [...reads, other], block);
    const batcher = new ReadBatcher(client, devnet.contracts.multicall3);
    proxy.reset();
    const [first, second] = await Promise.all([batcher.read(reads.slice(0, 7), 'first', block), batcher.read([...reads.slice(7), other], 'second', block)]);
    await batcher.idle();
    assert.deepEqual([...first, ...second], expected);
    assert.deepEqual(second.at(-1), { ok: true, value: block });
    // One call for the balances of the MIN_BALANCE_HOLDERS holders, one for the rest.
    assert.equal(MIN_BALANCE_HOLDERS, 4);
    assert.equal(proxy.count('eth_call'), 2);
  });

  it('splits a burst past MAX_BALANCES_PER_CALL balances over calls, each answer still its own', async () => {
    const block = await client.getBlockNumber();
    const tokens = [devnet.contracts.serviceToken, devnet.contracts.stablecoin, ...devnet.registry.assets.filter((asset) => !asset.is_native).map((asset) => asset.contract_address as Address)];
    const holders = [devnet.wallets[devnet.wallets.length - 1].address, ...Array.from({ length: Math.ceil(MAX_BALANCES_PER_CALL / tokens.length) }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)];
    const reads = holders.flatMap((holder) => tokens.map((token) => balanceOfRead(token, holder)));
    assert.ok(reads.length > MAX_BALANCES_PER_CALL);
    const expected = await callAggregate3(client, devnet.contracts.multicall3, reads, block);
    const batcher = new ReadBatcher(client, devnet.contracts.multicall3);
    proxy.reset();
    assert.deepEqual(await batcher.read(reads, 'a burst', block), expected);
    await batcher.idle();
    assert.deepEqual(proxy.calls.map((call) => call.to), ['', '']);
  });

  it('rejects every caller when the node does not answer the balance reader, never answering a balance', async () => {
    const dead = createChainClient(`http://127.0.0.1:${await freePort()}`, 500);
    const batcher = new ReadBatcher(dead, devnet.contracts.multicall3);
    const reads = mixedReads();
    assert.ok(new Set(reads.map((read) => read.balance!.holder)).size >= MIN_BALANCE_HOLDERS);
    const answers = await Promise.allSettled([batcher.read(reads.slice(0, 7), 'first', 1n), batcher.read(reads.slice(7), 'second', 1n)]);
    for (const answer of answers) {
      assert.equal(answer.status, 'rejected');
      assert.ok((answer as PromiseRejectedResult).reason instanceof ChainUnavailableError);
    }
  });

  it('leaves the balances of fewer holders in the one aggregate3 call', async () => {
    const block = await client.getBlockNumber();
    const reads = mixedReads().filter((read) => read.balance!.holder === devnet.wallets[0].address);
    const expected = await callAggregate3(client, devnet.contracts.multicall3, reads, block);
    const batcher = new ReadBatcher(client, devnet.contracts.multicall3);
    proxy.reset();
    assert.deepEqual(await batcher.read(reads, 'one holder', block), expected);
    await batcher.idle();
    assert.deepEqual(proxy.calls.map((call) => call.to), [devnet.contracts.multicall3.toLowerCase()]);
  });
});
