// The quote's v4 math held equal to real swaps on the devnet at the same block: several sizes, both directions, a full-range pool and one with concentrated ranges.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, maxUint256, type Address, type PublicClient } from 'viem';
import { openChainReads, webSocketUrlOf, type ChainReads } from '../../../../src/facts/chain/chain-reads.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { PoolStateReader, type VenuePool } from '../../../../src/facts/quote/pool-state-reader.js';
import { simulateSwap } from '../../../../src/risk/quote/v4-swap.js';
import { registryFromFile, type Registry } from '../../../../src/facts/registry/registry.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { swapHelperAbi } from '../../../support/devnet-abis.js';
import { walletClientFor } from '../../../support/devnet-helpers.js';
import { pollUntil } from '../../../support/wait-until.js';

let devnet: Devnet;
let client: PublicClient;
let registry: Registry;
let reads: ChainReads;
let reader: PoolStateReader;

/** Trade sizes in USD: from one the pool barely notices to one that walks far through the ranges. */
const SIZES_USD = [1_000, 100_000, 1_000_000, 2_500_000, 5_000_000, 7_500_000, 12_000_000];

before(async () => {
  // Blocks only on transactions, so the block the state was read at stays the latest while the swaps are simulated.
  devnet = await startDevnet({ blockTimeSeconds: 0 });
  client = createChainClient(devnet.rpcUrl);
  registry = registryFromFile(devnet.registry);
  const wallet = walletClientFor(devnet, devnet.deployerPrivateKey);
  for (const token of [devnet.pools.TSLA.token, devnet.pools.SPY.token, devnet.contracts.stablecoin]) {
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [devnet.contracts.swapHelper, maxUint256] });
    assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');
  }
  reads = await openChainReads(client, registry, { wsUrl: webSocketUrlOf(devnet.rpcUrl), log: () => undefined });
  reader = new PoolStateReader(reads, registry.venue!);
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  await pollUntil('the head watch to see the latest block', async () => reads.head.current()?.number, (number) => number === latest);
});

after(async () => {
  reads?.close();
  await devnet?.close();
});

/** What the real pool pays for `amountIn` at `block`, in an eth_call of the devnet's SwapHelper. */
async function realSwap(symbol: string, zeroForOne: boolean, amountIn: bigint, block: bigint): Promise<bigint> {
  const pool = devnet.pools[symbol];
  const key = { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks };
  const { result } = await client.simulateContract({
    address: devnet.contracts.swapHelper, abi: swapHelperAbi, functionName: 'swapExactIn',
    args: [devnet.contracts.poolManager, key, zeroForOne, amountIn, 0n, devnet.deployer], account: devnet.deployer as Address, blockNumber: block,
  });
  return result[1];
}

/** Base units worth `usd`: of the stablecoin when buying the token, of the token when selling it. */
function amountFor(symbol: string, usd: number, buying: boolean): bigint {
  if (buying) return BigInt(usd) * 10n ** 6n;
  return (BigInt(usd) * 10n ** 18n * 100n) / BigInt(Math.round(devnet.pools[symbol].priceUsd * 100));
}

async function stateOf(symbol: string): Promise<VenuePool> {
  const pool = await reader.pool(registry.bySymbol(symbol)!);
  assert.ok(pool, `${symbol} has a pool state`);
  return pool;
}

describe('venue quote against real swaps', () => {
  for (const symbol of ['TSLA', 'SPY']) {
    it(`pays what the real ${symbol} pool pays for every size, buying and selling, at the block read`, async () => {
      const pool = await stateOf(symbol);
      let crossed = 0;
      for (const buying of [true, false]) {
        // Buying the token spends the stablecoin: currency0 -> currency1 exactly when the token is currency1.
        const zeroForOne = buying === !pool.tokenIsCurrency0;
        for (const usd of SIZES_USD) {
          const amountIn = amountFor(symbol, usd, buying);
          const quoted = simulateSwap(pool.state, { zeroForOne, exactIn: true, amount: amountIn });
          const paid = await realSwap(symbol, zeroForOne, amountIn, BigInt(pool.block.number));
          assert.deepEqual([quoted.fill, quoted.amountIn, quoted.amountOut], ['filled', amountIn, paid], `${symbol} ${buying ? 'buy' : 'sell'} of ${usd} USD`);
          crossed += quoted.ticksCrossed;
        }
      }
      // The full-range pool has no initialized tick near its price; the concentrated one must be walked across several.
      if (symbol === 'SPY') assert.ok(crossed >= 6, `SPY quotes crossed ${crossed} initialized ticks`);
      else assert.equal(crossed, 0);
    });
  }

  it('asks an exact output for an input the real pool turns into at least that output', async () => {
    const pool = await stateOf('SPY');
    const zeroForOne = pool.tokenIsCurrency0 === false;
    for (const tokens of [1n, 1_000n, 8_000n]) {
      const wanted = tokens * 10n ** 18n;
      const quoted = simulateSwap(pool.state, { zeroForOne, exactIn: false, amount: wanted });
      assert.equal(quoted.amountOut, wanted);
      assert.ok(await realSwap('SPY', zeroForOne, quoted.amountIn, BigInt(pool.block.number)) >= wanted, `${tokens} SPY`);
    }
  });

  it('reads a pool once per block: the same state object until a block is mined', async () => {
    const first = await stateOf('SPY');
    assert.equal(await stateOf('SPY'), first);
    await client.request({ method: 'evm_mine' as never, params: [] as never });
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    await pollUntil('the head watch to see the mined block', async () => reads.head.current()?.number, (number) => number === latest);
    const next = await stateOf('SPY');
    assert.notEqual(next, first);
    assert.equal(next.block.number, latest.toString());
  });
});
