// Deploys the real Uniswap v4 PoolManager and StateView plus the devnet helpers, then seeds the pools.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { erc20Abi, maxUint256, type Abi, type Address, type Hex } from 'viem';
import type { Artifacts } from './compile.js';
import type { TxSender } from './sender.js';
import { packageRoot } from './sources.js';
import { STABLE_DECIMALS, units } from './assets.js';
import { poolIdOf } from '../../facts/chain/venue-pool.js';
import { alignedTickBelow, fullRangeTicks, liquidityForStable, poolKeyFor, sqrtPriceX96For, type PoolKey } from './pricing.js';

export interface UniswapDeployment {
  poolManager: Address;
  stateView: Address;
  liquidityHelper: Address;
  swapHelper: Address;
}

export interface DevnetPool extends PoolKey {
  poolId: Hex;
  /** The pool's non-stablecoin side. */
  token: Address;
  /** The USD price the pool was initialised at. */
  priceUsd: number;
  sqrtPriceX96: bigint;
  /** The liquidity of the pool's full-range position. */
  fullRangeLiquidity: bigint;
}

/** One pool to create against the stablecoin. */
export interface PoolPlan {
  symbol: string;
  token: Address;
  priceUsd: number;
  depthUsd: bigint;
}

/** The compiled artifacts the Uniswap npm packages ship; deployed byte for byte. */
function uniswapArtifact(pkg: string, path: string): { abi: Abi; bytecode: Hex } {
  const json = JSON.parse(readFileSync(join(packageRoot(pkg), path), 'utf8')) as { abi: Abi; bytecode: { object: Hex } };
  return { abi: json.abi, bytecode: json.bytecode.object };
}

export const POOL_MANAGER_ARTIFACT = ['@uniswap/v4-core', 'out/PoolManager.sol/PoolManager.json'] as const;
export const STATE_VIEW_ARTIFACT = ['@uniswap/v4-periphery', 'foundry-out/StateView.sol/StateView.json'] as const;

export async function deployUniswap(sender: TxSender, artifacts: Artifacts): Promise<UniswapDeployment> {
  // PoolManager(address initialOwner): the owner may only set protocol fees; the deployer keeps it.
  const poolManager = await sender.deploy('PoolManager', uniswapArtifact(...POOL_MANAGER_ARTIFACT), [sender.address]);
  const stateView = await sender.deploy('StateView', uniswapArtifact(...STATE_VIEW_ARTIFACT), [poolManager]);
  const liquidityHelper = await sender.deploy('LiquidityHelper', artifacts.LiquidityHelper, [poolManager]);
  // SwapHelper takes the manager per call, so its code also works on other chains (see the contract).
  const swapHelper = await sender.deploy('SwapHelper', artifacts.SwapHelper);
  return { poolManager, stateView, liquidityHelper, swapHelper };
}

/**
 * Initialises each pool at its USD price and adds full-range liquidity worth `depthUsd`
 * of stablecoin (plus the matching token amount), paid by the deployer via LiquidityHelper.
 */
export async function seedPools(
  sender: TxSender,
  artifacts: Artifacts,
  uniswap: UniswapDeployment,
  stablecoin: Address,
  plans: readonly PoolPlan[],
): Promise<Record<string, DevnetPool>> {
  const abis = { manager: uniswapArtifact(...POOL_MANAGER_ARTIFACT).abi, helper: artifacts.LiquidityHelper.abi };
  await sender.call('stablecoin approve', stablecoin, erc20Abi, 'approve', [uniswap.liquidityHelper, maxUint256]);
  const pools: Record<string, DevnetPool> = {};
  for (const plan of plans) {
    await sender.call(`${plan.symbol} approve`, plan.token, erc20Abi, 'approve', [uniswap.liquidityHelper, maxUint256]);
    pools[plan.symbol] = await seedPool(sender, abis, uniswap, stablecoin, plan);
  }
  return pools;
}

async function seedPool(
  sender: TxSender,
  abis: { manager: Abi; helper: Abi },
  uniswap: UniswapDeployment,
  stablecoin: Address,
  plan: PoolPlan,
): Promise<DevnetPool> {
  const key = poolKeyFor(plan.token, stablecoin);
  const tokenIsCurrency0 = key.currency0 === plan.token;
  const sqrtPriceX96 = sqrtPriceX96For(plan.priceUsd, tokenIsCurrency0);
  await sender.call(`${plan.symbol} pool initialize`, uniswap.poolManager, abis.manager, 'initialize', [key, sqrtPriceX96]);
  const liquidity = liquidityForStable(sqrtPriceX96, !tokenIsCurrency0, units(plan.depthUsd, STABLE_DECIMALS));
  const { tickLower, tickUpper } = fullRangeTicks(key.tickSpacing);
  const args = [key, tickLower, tickUpper, liquidity];
  await sender.call(`${plan.symbol} add liquidity`, uniswap.liquidityHelper, abis.helper, 'modifyLiquidity', args);
  return { ...key, poolId: poolIdOf(key), token: plan.token, priceUsd: plan.priceUsd, sqrtPriceX96, fullRangeLiquidity: liquidity };
}

/**
 * Adds positions on `ranges` (tick spacings from the pool's tick, liquidity as a multiple of its
 * full-range position) to a seeded pool; the deployer pays, having approved LiquidityHelper when seeding.
 */
export async function addConcentratedRanges(
  sender: TxSender,
  artifacts: Artifacts,
  uniswap: UniswapDeployment,
  pool: DevnetPool,
  ranges: readonly { lower: number; upper: number; times: bigint }[],
): Promise<void> {
  const key = { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks };
  const base = alignedTickBelow(pool.sqrtPriceX96, pool.tickSpacing);
  for (const range of ranges) {
    const args = [key, base + range.lower * pool.tickSpacing, base + range.upper * pool.tickSpacing, pool.fullRangeLiquidity * range.times];
    await sender.call(`${pool.token} range ${range.lower}..${range.upper}`, uniswap.liquidityHelper, artifacts.LiquidityHelper.abi, 'modifyLiquidity', args);
  }
}
