// The embedded devnet end to end: chain, registry tokens, feeds, real v4 pools, hostile tokens, wallets, lifecycle.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, maxUint256, parseUnits, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { usdFromSqrtPriceX96 } from '../../../../src/tools/devnet/pricing.js';
import { MULTISIG_OWNERS } from '../../../../src/tools/devnet/wallets.js';
import {
  aggregatorAbi,
  hostileAbi,
  stablecoinAbi,
  stateViewAbi,
  stockTokenAbi,
  swapHelperAbi,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
} from '../../../support/devnet-abis.js';
import { DevnetDriver, revertName } from '../../../support/devnet-driver.js';
import {
  anvilAccounts,
  EIP1967_IMPLEMENTATION_SLOT,
  erc7201Slot,
  mappingSlot,
  pidExists,
  portIsFree,
  walletClientFor,
} from '../../../support/devnet-helpers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const ONE = 10n ** 18n;
const DAY = 86_400n;
let devnet: Devnet;
let client: PublicClient;
let drive: DevnetDriver;
let cacheDir: string;
let coldMs: number;
/** Whether the other process that compiled into the same empty cache at the same time found the contracts cached. */
let otherCacheHit: boolean;

/** compileContracts in a process of its own, as a second test file starting a devnet at the same moment would. */
async function compileElsewhere(dir: string): Promise<{ cacheHit: boolean }> {
  const compile = new URL('../../../../src/tools/devnet/compile.js', import.meta.url).href;
  const script = `const { compileContracts } = await import(${JSON.stringify(compile)});`
    + `const r = await compileContracts({ root: ${JSON.stringify(ROOT)}, cacheDir: ${JSON.stringify(dir)} });`
    + 'process.stdout.write(JSON.stringify({ cacheHit: r.cacheHit }));';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { cacheHit: boolean };
}

before(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'devnet-cache-'));
  const started = performance.now();
  const [cold, other] = await Promise.all([startDevnet({ cacheDir }), compileElsewhere(cacheDir)]);
  devnet = cold;
  otherCacheHit = other.cacheHit;
  coldMs = performance.now() - started;
  drive = new DevnetDriver(devnet);
  client = drive.client;
});

after(async () => {
  await devnet?.close();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('embedded devnet', () => {
  it('answers as chain 4663 with anvil development accounts', async () => {
    assert.equal(devnet.chainId, 4663);
    assert.equal(await client.getChainId(), 4663);
    const accounts = (await anvilAccounts(devnet)).map((a) => a.toLowerCase());
    const keys = [...devnet.wallets, { address: devnet.deployer, privateKey: devnet.deployerPrivateKey }];
    for (const { address, privateKey } of keys) {
      assert.equal(privateKeyToAccount(privateKey).address, address);
      assert.ok(accounts.includes(address.toLowerCase()), `${address} is an anvil account`);
    }
  });

  it('lists the registry stock tokens: 18 decimals, deployed code, ERC-8056 multiplier 1.0', async () => {
    assert.deepEqual(devnet.registry.assets.map((a) => [a.symbol, a.default_price_usd, a.decimals, a.is_native]), [
      ['TSLA', 350.25, 18, false], ['NVDA', 181.4, 18, false], ['AAPL', 229.87, 18, false],
      ['SPY', 601.1, 18, false], ['AMZN', 214.3, 18, false], ['MSFT', 432.55, 18, false],
    ]);
    for (const asset of devnet.registry.assets) {
      const token = asset.contract_address as Address;
      assert.ok(((await client.getCode({ address: token })) ?? '0x').length > 2, `${asset.symbol} has code`);
      assert.equal(await drive.read(token, stockTokenAbi, 'decimals'), 18);
      assert.equal(await drive.read(token, stockTokenAbi, 'symbol'), asset.symbol);
      assert.equal(await drive.read(token, stockTokenAbi, 'uiMultiplier'), ONE);
      assert.equal(asset.price_feed, devnet.contracts.aggregators[asset.symbol]);
    }
  });

  it('prices every asset with an 8-decimal feed: MSFT stale by three days, the rest fresh', async () => {
    const { timestamp } = await client.getBlock();
    assert.deepEqual(devnet.staleFeeds, ['MSFT']);
    for (const asset of devnet.registry.assets) {
      const feed = asset.price_feed as Address;
      assert.equal(await drive.read(feed, aggregatorAbi, 'decimals'), 8);
      assert.equal(await drive.read(feed, aggregatorAbi, 'description'), `${asset.symbol} / USD`);
      const [roundId, answer, , updatedAt, answeredInRound] = (await drive.read(feed, aggregatorAbi, 'latestRoundData')) as bigint[];
      const expectedAnswer = BigInt(Math.round(asset.default_price_usd! * 1e8));
      assert.deepEqual([roundId, answer, answeredInRound], [1n, expectedAnswer, 1n]);
      const age = timestamp - updatedAt;
      if (asset.symbol === 'MSFT') assert.ok(age >= 3n * DAY && age < 3n * DAY + 600n, `MSFT age ${age}`);
      else assert.ok(age >= 0n && age < 600n, `${asset.symbol} age ${age}`);
    }
  });

  it('runs real v4 pools whose slot0 price is the USD price, with liquidity, for every token', async () => {
    const symbols = Object.keys(devnet.pools);
    assert.deepEqual(symbols, ['TSLA', 'NVDA', 'AAPL', 'SPY', 'AMZN', 'MSFT', 'HPOT', 'FOT', 'BLPS', 'MSIG', 'RNCD', 'PRXY']);
    // Hostile pools are priced at $1; between them and the stocks both currency orders occur.
    for (const symbol of symbols) {
      const pool = devnet.pools[symbol];
      const asset = devnet.registry.assets.find((entry) => entry.symbol === symbol) ?? { symbol, default_price_usd: 1 };
      assert.ok(BigInt(pool.currency0) < BigInt(pool.currency1));
      assert.equal(pool.priceUsd, asset.default_price_usd);
      assert.deepEqual([pool.fee, pool.tickSpacing, pool.hooks], [3000, 60, '0x0000000000000000000000000000000000000000']);
      const slot0 = await drive.read(devnet.contracts.stateView, stateViewAbi, 'getSlot0', [pool.poolId]);
      const [sqrtPriceX96, , protocolFee, lpFee] = slot0 as [bigint, number, number, number];
      assert.equal(sqrtPriceX96, pool.sqrtPriceX96);
      assert.deepEqual([protocolFee, lpFee], [0, 3000]);
      const usd = usdFromSqrtPriceX96(sqrtPriceX96, pool.currency0 === pool.token);
      assert.ok(Math.abs(usd / asset.default_price_usd! - 1) < 0.01, `${asset.symbol} pool price ${usd}`);
      const liquidity = await drive.read(devnet.contracts.stateView, stateViewAbi, 'getLiquidity', [pool.poolId]);
      assert.ok((liquidity as bigint) > 0n, `${asset.symbol} liquidity`);
    }
  });

  it('funds the demo wallets: 0 / 1,000 / 2,500 / 5,000 service tokens, stablecoin and stocks', async () => {
    const plan = devnet.wallets.map((w) => [w.label, w.tier, w.serviceTokens]);
    assert.deepEqual(plan, [['A', 1, 0], ['B', 1, 1000], ['C', 2, 2500], ['D', 3, 5000]]);
    const balance = (token: string, holder: Address) => drive.read(token, erc20Abi, 'balanceOf', [holder]);
    for (const wallet of devnet.wallets) {
      assert.equal(await balance(devnet.contracts.serviceToken, wallet.address), BigInt(wallet.serviceTokens) * ONE);
      assert.equal(await balance(devnet.contracts.stablecoin, wallet.address), 1_000n * 10n ** 6n);
      for (const asset of devnet.registry.assets) assert.equal(await balance(asset.contract_address, wallet.address), 10n * ONE);
      assert.equal(await balance(devnet.contracts.hostile.renounced, wallet.address), 100n * ONE);
    }
    assert.equal(await drive.read(devnet.contracts.stablecoin, stablecoinAbi, 'decimals'), 6);
  });

  it('sells a stock token for stablecoin through SwapHelper in an eth_call after approve', async () => {
    const wallet = devnet.wallets[0];
    await drive.approveMax(wallet.privateKey, devnet.pools.TSLA.token, devnet.contracts.swapHelper);
    const [paid, amountOut, received] = await drive.sell('TSLA', ONE, { from: wallet.address });
    assert.equal(paid, ONE);
    assert.equal(received, amountOut);
    await drive.assertQuote('TSLA', ONE, amountOut);
    // About $350.25 less the 0.30% LP fee: the $10M pool barely moves for one share.
    assert.ok(amountOut > 349_150_000n && amountOut < 349_200_000n, `amountOut ${amountOut}`);
  });

  it('lets the honeypot be bought but reverts a holder selling it', async () => {
    const wallet = devnet.wallets[0];
    for (const token of [devnet.contracts.hostile.honeypot, devnet.contracts.stablecoin]) {
      await drive.approveMax(wallet.privateKey, token, devnet.contracts.swapHelper);
    }
    const pool = devnet.pools.HPOT;
    const { result: bought } = await client.simulateContract({
      address: devnet.contracts.swapHelper,
      abi: swapHelperAbi,
      functionName: 'swapExactIn',
      args: [devnet.contracts.poolManager, pool, pool.currency0 !== pool.token, 10n * 10n ** 6n, 0n, wallet.address],
      account: wallet.address,
    });
    // 10 USDC at $1 less the 0.30% fee buys just under 10 tokens, delivered untaxed.
    assert.ok(bought[1] > 9n * ONE && bought[1] < 10n * ONE && bought[2] === bought[1], `bought ${bought[1]}`);
    const sell = drive.sell('HPOT', ONE, { from: wallet.address });
    await assert.rejects(sell, (error) => revertName(error) === 'TransferNotAllowed');
    assert.equal(await drive.read(pool.token, hostileAbi, 'poolManager'), devnet.contracts.poolManager);
  });

  it('simulates sells with code and balance state overrides, no approval (the token-safety technique)', async () => {
    // SwapHelper's runtime has no immutables, so the same code works at any address on any chain.
    const code = (await client.getCode({ address: devnet.contracts.swapHelper }))!;
    const helper: Address = '0x5afe000000000000000000000000000000005afe';
    const amount = 10n * ONE;
    const sell = (symbol: string, balanceRoot: bigint | Hex = 0n) =>
      drive.sell(symbol, amount, {
        from: devnet.wallets[1].address,
        helper,
        fromHelper: true,
        stateOverride: [
          { address: helper, code },
          {
            address: devnet.pools[symbol].token,
            stateDiff: [{ slot: mappingSlot(helper, balanceRoot), value: toHex(amount, { size: 32 }) }],
          },
        ],
      });
    const [paidTsla, amountOutTsla, receivedTsla] = await sell('TSLA');
    assert.equal(paidTsla, amount);
    assert.equal(receivedTsla, amountOutTsla);
    await drive.assertQuote('TSLA', amount, amountOutTsla);
    assert.equal((await sell('FOT'))[0], (amount * 9n) / 10n);
    await assert.rejects(sell('HPOT'), (error) => revertName(error) === 'TransferNotAllowed');
    assert.equal((await sell('BLPS'))[0], amount);
    assert.equal((await sell('MSIG'))[0], amount);
    assert.equal((await sell('RNCD'))[0], amount);
    assert.equal((await sell('PRXY', erc7201Slot('openzeppelin.storage.ERC20')))[0], amount);
  });

  it('delivers 90% of a fee-on-transfer transfer', async () => {
    const [from, to] = devnet.wallets;
    const fot = devnet.contracts.hostile.feeOnTransfer;
    const before = (await drive.read(fot, erc20Abi, 'balanceOf', [to.address])) as bigint;
    const hash = await walletClientFor(devnet, from.privateKey).writeContract({
      address: fot,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to.address, 10n * ONE],
    });
    await client.waitForTransactionReceipt({ hash });
    assert.equal(((await drive.read(fot, erc20Abi, 'balanceOf', [to.address])) as bigint) - before, 9n * ONE);
    assert.equal(await drive.read(fot, hostileAbi, 'FEE_BPS'), 1000n);
  });

  it('deploys the ownership cases: 2-of-3 multisig owner, renounced owner, blacklist/pause owner', async () => {
    const { hostile } = devnet.contracts;
    assert.equal(await drive.read(hostile.multisigOwned, hostileAbi, 'owner'), hostile.multisig);
    assert.equal(await drive.read(hostile.multisig, hostileAbi, 'getThreshold'), 2n);
    assert.deepEqual(await drive.read(hostile.multisig, hostileAbi, 'getOwners'), MULTISIG_OWNERS);
    assert.equal(await drive.read(hostile.renounced, hostileAbi, 'owner'), '0x0000000000000000000000000000000000000000');
    assert.equal(await drive.read(hostile.blacklist, hostileAbi, 'owner'), devnet.deployer);
    assert.equal(await drive.read(hostile.blacklist, hostileAbi, 'paused'), false);
    assert.equal(await drive.read(hostile.blacklist, hostileAbi, 'isBlacklisted', [devnet.wallets[0].address]), false);
  });

  it('puts the proxy implementation in the EIP-1967 slot and the token state in ERC-7201 storage', async () => {
    const { proxy, proxyImplementation } = devnet.contracts.hostile;
    const slot = await client.getStorageAt({ address: proxy, slot: EIP1967_IMPLEMENTATION_SLOT });
    assert.equal(`0x${slot!.slice(26)}`, proxyImplementation.toLowerCase());
    assert.equal(await drive.read(proxy, hostileAbi, 'name'), 'Upgradeable Proxy Token');
    const root = erc7201Slot('openzeppelin.storage.ERC20');
    assert.equal(await drive.read(proxy, hostileAbi, 'ERC20_STORAGE'), root);
    const holder = devnet.wallets[2].address;
    const stored = await client.getStorageAt({ address: proxy, slot: mappingSlot(holder, root) });
    assert.equal(BigInt(stored!), 100n * ONE);
  });

  it('keeps balances of the OpenZeppelin-based tokens in slot 0', async () => {
    const holder = devnet.wallets[3].address;
    const { hostile } = devnet.contracts;
    const tokens = [
      devnet.contracts.serviceToken,
      devnet.contracts.stablecoin,
      ...devnet.registry.assets.map((asset) => asset.contract_address as Address),
      hostile.honeypot,
      hostile.feeOnTransfer,
      hostile.blacklist,
      hostile.multisigOwned,
      hostile.renounced,
    ];
    for (const token of tokens) {
      const stored = await client.getStorageAt({ address: token, slot: mappingSlot(holder, 0n) });
      assert.equal(BigInt(stored!), await drive.read(token, erc20Abi, 'balanceOf', [holder]), token);
    }
  });

  it('settles an EIP-3009 transferWithAuthorization on the stablecoin', async () => {
    const [payer, payee, , relayer] = devnet.wallets;
    const stable = devnet.contracts.stablecoin;
    const nonce = toHex(1, { size: 32 });
    const value = parseUnits('1.5', 6);
    const message = { from: payer.address, to: payee.address, value, validAfter: 0n, validBefore: maxUint256, nonce };
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 4663, verifyingContract: stable },
      types: { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES },
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, nonce, signature] as const;
    const before = (await drive.read(stable, stablecoinAbi, 'balanceOf', [payee.address])) as bigint;
    const relay = walletClientFor(devnet, relayer.privateKey);
    const hash = await relay.writeContract({ address: stable, abi: stablecoinAbi, functionName: 'transferWithAuthorization', args });
    assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(((await drive.read(stable, stablecoinAbi, 'balanceOf', [payee.address])) as bigint) - before, 1_500_000n);
    assert.equal(await drive.read(stable, stablecoinAbi, 'authorizationState', [payer.address, nonce]), true);
    const replay = client.simulateContract({
      address: stable,
      abi: stablecoinAbi,
      functionName: 'transferWithAuthorization',
      args,
      account: relayer.address,
    });
    await assert.rejects(replay, (error) => revertName(error) === 'AuthorizationAlreadyUsed');
  });

  it('serves viem multicall through Multicall3 at its canonical address', async () => {
    const contracts = devnet.registry.assets.map(
      (asset) => ({ address: asset.contract_address as Address, abi: erc20Abi, functionName: 'decimals' }) as const,
    );
    const results = await client.multicall({ contracts, allowFailure: false });
    assert.deepEqual(results, [18, 18, 18, 18, 18, 18]);
  });

  it('compiles once when two processes start on an empty cache, starts warm from it at the same addresses, and close() leaves nothing running', async (t) => {
    const started = performance.now();
    const warm = await startDevnet({ cacheDir });
    const warmMs = performance.now() - started;
    const ms = (value: number) => `${Math.round(value)} ms`;
    t.diagnostic(`cold start ${ms(coldMs)} (compile ${ms(devnet.build.compileMs)}), warm start ${ms(warmMs)} (cache read ${ms(warm.build.compileMs)})`);
    // The devnet and the other process began on an empty cache at once: one compiled, the other waited and read it.
    assert.deepEqual([devnet.build.cacheHit, otherCacheHit].sort(), [false, true]);
    assert.equal(warm.build.cacheHit, true);
    assert.deepEqual(warm.registry, devnet.registry);
    assert.deepEqual(warm.contracts, devnet.contracts);
    assert.notEqual(warm.rpcUrl, devnet.rpcUrl);
    assert.equal(pidExists(warm.anvil.pid), true);
    await warm.close();
    assert.equal(pidExists(warm.anvil.pid), false);
    assert.equal(await portIsFree(warm.anvil.port), true);
  });
});
