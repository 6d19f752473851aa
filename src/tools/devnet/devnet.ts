// Starts the embedded devnet: anvil with chain id 4663 and every contract the service reads, deployed fresh.
import { join } from 'node:path';
import { createPublicClient, createTestClient, http, type Address, type Chain, type Hex } from 'viem';
import { robinhood } from 'viem/chains';
import type { RegistryFile } from '../../facts/registry/registry.js';
import { startAnvil, type AnvilProcess } from './anvil.js';
import { CHAIN_ID, HOSTILE_POOL_DEPTH_USD, HOSTILE_PRICE_USD, STOCK_POOL_DEPTH_USD, TOKEN_DECIMALS } from './assets.js';
import { compileContracts, type Artifacts, type CompileResult } from './compile.js';
import { deployHostile, HOSTILE_TOKENS, type HostileDeployment, type HostileToken } from './deploy-hostile.js';
import { deployUniswap, seedPools, type DevnetPool, type PoolPlan, type UniswapDeployment } from './deploy-pools.js';
import { deployTokens, type TokenDeployment } from './deploy-tokens.js';
import { installMulticall3 } from './multicall.js';
import { TxSender } from './sender.js';
import { repoRoot } from './sources.js';
import { ANVIL_ACCOUNT_COUNT, ANVIL_MNEMONIC, DEPLOYER, FACILITATOR_ACCOUNT, TREASURY, demoWallets, type DemoWallet } from './wallets.js';

export type { DemoWallet } from './wallets.js';
export type { DevnetPool } from './deploy-pools.js';
export type { HostileDeployment } from './deploy-hostile.js';

export interface DevnetOptions {
  /** Where compiled contracts are cached; default $DEVNET_CACHE_DIR, else <repo>/.cache/solc. */
  cacheDir?: string;
  /** Progress lines; the devnet prints nothing without it. */
  log?: (line: string) => void;
  /** Anvil's port; default a free one. A restart passes the old one so clients keep their address. */
  port?: number;
  /** The permit signer the TradePermitGuard trusts; default the deployer (a devnet without a service). */
  permitSigner?: Address;
  /** Seconds between blocks when no transaction comes; default DEVNET_BLOCK_SECONDS, 0 mines only on transactions. */
  blockTimeSeconds?: number;
}

/** A block a second, transactions or not, so chain time follows the clock (ARCHITECTURE.md "Devnet block time"). */
export const DEVNET_BLOCK_SECONDS = 1;

export interface DevnetContracts {
  serviceToken: Address;
  stablecoin: Address;
  poolManager: Address;
  stateView: Address;
  swapHelper: Address;
  liquidityHelper: Address;
  multicall3: Address;
  /** Enforces the service's trade permits (docs/enforcing-on-chain.md). */
  permitGuard: Address;
  /** Swaps on the v4 pools only under a permit the guard accepts. */
  guardedSwapRouter: Address;
  /** Chainlink-style feed per registry symbol. */
  aggregators: Record<string, Address>;
  hostile: HostileDeployment;
}

export interface Devnet {
  rpcUrl: string;
  chainId: typeof CHAIN_ID;
  /** viem's robinhood chain pointed at this devnet's RPC. */
  chain: Chain;
  registry: RegistryFile;
  contracts: DevnetContracts;
  /** Pools against the stablecoin, keyed by the token's symbol (registry and hostile). */
  pools: Record<string, DevnetPool>;
  wallets: DemoWallet[];
  /** Anvil account 0: deployed and owns every contract (owner of feeds, tokens, PoolManager). */
  deployer: Address;
  deployerPrivateKey: Hex;
  /** Anvil account 8: the embedded x402 facilitator settles payments with it and pays the gas. */
  facilitator: { address: Address; privateKey: Hex };
  /** Anvil account 9: where x402 payments go unless PAY_TO_ADDRESS says otherwise. */
  treasury: Address;
  /** Registry symbols whose feed was deployed stale. */
  staleFeeds: string[];
  anvil: { pid: number; port: number };
  /** Settles when anvil exits for any reason (close() included), with how it ended. */
  exited: Promise<string>;
  build: { cacheHit: boolean; cacheFile: string; compileMs: number; deployMs: number; totalMs: number };
  close(): Promise<void>;
}

export function devnetChain(rpcUrl: string): Chain {
  return { ...robinhood, rpcUrls: { default: { http: [rpcUrl] } } };
}

export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const started = performance.now();
  const root = repoRoot();
  const cacheDir = options.cacheDir ?? process.env.DEVNET_CACHE_DIR ?? join(root, '.cache', 'solc');
  // Anvil boots while the contracts load or compile; whichever fails, nothing is left running.
  const [compiled, anvil] = await Promise.allSettled([
    compileContracts({ root, cacheDir, log: options.log }),
    startAnvil({
      chainId: CHAIN_ID, mnemonic: ANVIL_MNEMONIC, accounts: ANVIL_ACCOUNT_COUNT, port: options.port,
      blockTimeSeconds: options.blockTimeSeconds ?? DEVNET_BLOCK_SECONDS,
    }),
  ]);
  if (anvil.status === 'rejected') throw anvil.reason;
  if (compiled.status === 'rejected') {
    await anvil.value.close();
    throw compiled.reason;
  }
  try {
    return await deploy(anvil.value, compiled.value, started, options.log, options.permitSigner ?? DEPLOYER.address);
  } catch (error) {
    await anvil.value.close();
    throw error;
  }
}

interface Deployed {
  uniswap: UniswapDeployment;
  tokens: TokenDeployment;
  hostile: HostileDeployment;
  pools: Record<string, DevnetPool>;
  multicall3: Address;
  permits: { permitGuard: Address; guardedSwapRouter: Address };
}

/** Every transaction comes from the deployer in a fixed order, so addresses never change. */
async function deployAll(rpcUrl: string, chain: Chain, artifacts: Artifacts, permitSigner: Address): Promise<Deployed> {
  const client = createPublicClient({ chain, transport: http(rpcUrl) });
  const sender = await TxSender.open(client, DEPLOYER.privateKey, CHAIN_ID);
  const wallets = demoWallets();
  const uniswap = await deployUniswap(sender, artifacts);
  const tokens = await deployTokens(sender, artifacts, wallets);
  const hostile = await deployHostile(sender, artifacts, wallets, uniswap.poolManager);
  const pools = await seedPools(sender, artifacts, uniswap, tokens.stablecoin, poolPlans(tokens, hostile));
  // Last, so every address above stays where it was; two transactions in the same confirmation batch.
  // The guard trusts the router deployed right after it (ARCHITECTURE.md "Trade permits"): its address is known before either is mined.
  const permitGuard = await sender.deploy('TradePermitGuard', artifacts.TradePermitGuard, [permitSigner, sender.addressAhead(1)]);
  const guardedSwapRouter = await sender.deploy('GuardedSwapRouter', artifacts.GuardedSwapRouter, [permitGuard, uniswap.swapHelper]);
  await sender.confirmAll();
  const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const multicall3 = await installMulticall3(testClient, artifacts.Multicall3.deployedBytecode);
  return { uniswap, tokens, hostile, pools, multicall3, permits: { permitGuard, guardedSwapRouter } };
}

async function deploy(
  anvil: AnvilProcess,
  compiled: CompileResult,
  started: number,
  log: ((line: string) => void) | undefined,
  permitSigner: Address,
): Promise<Devnet> {
  const deployStarted = performance.now();
  const chain = devnetChain(anvil.rpcUrl);
  const { uniswap, tokens, hostile, pools, multicall3, permits } = await deployAll(anvil.rpcUrl, chain, compiled.artifacts, permitSigner);
  const deployMs = performance.now() - deployStarted;
  log?.(`devnet: anvil pid ${anvil.pid} at ${anvil.rpcUrl}, contracts deployed in ${Math.round(deployMs)} ms`);
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: CHAIN_ID,
    chain,
    registry: registryOf(tokens, uniswap, pools, multicall3),
    contracts: { ...contractsOf(tokens, hostile, uniswap, multicall3), ...permits },
    pools,
    wallets: demoWallets(),
    deployer: DEPLOYER.address,
    deployerPrivateKey: DEPLOYER.privateKey,
    facilitator: { ...FACILITATOR_ACCOUNT },
    treasury: TREASURY,
    staleFeeds: tokens.stocks.filter((stock) => stock.asset.staleFeed).map((stock) => stock.asset.symbol),
    anvil: { pid: anvil.pid, port: anvil.port },
    exited: anvil.exited,
    build: {
      cacheHit: compiled.cacheHit,
      cacheFile: compiled.cacheFile,
      compileMs: compiled.ms,
      deployMs,
      totalMs: performance.now() - started,
    },
    close: anvil.close,
  };
}

function poolPlans(tokens: TokenDeployment, hostile: HostileDeployment): PoolPlan[] {
  const stocks = tokens.stocks.map(({ asset, token }) => ({
    symbol: asset.symbol,
    token,
    priceUsd: asset.priceUsd,
    depthUsd: STOCK_POOL_DEPTH_USD,
  }));
  const hostiles = (Object.keys(HOSTILE_TOKENS) as HostileToken[]).map((key) => ({
    symbol: HOSTILE_TOKENS[key].symbol,
    token: hostile[key],
    priceUsd: HOSTILE_PRICE_USD,
    depthUsd: HOSTILE_POOL_DEPTH_USD,
  }));
  return [...stocks, ...hostiles];
}

/**
 * The registry file format src/facts/registry/ reads (REGISTRY_FILE), filled with this devnet's addresses:
 * its stocks and feeds, the service token behind the tiers, the settlement stablecoin, the v4 pools
 * (every asset against the 6-decimal stablecoin, fee 3000, tick spacing 60, no hooks) and Multicall3.
 * The embedded devnet's service reads exactly this, and `npm run devnet` writes it for a service started apart.
 */
function registryOf(tokens: TokenDeployment, uniswap: UniswapDeployment, pools: Record<string, DevnetPool>, multicall3: Address): RegistryFile {
  const anyPool = Object.values(pools)[0];
  return {
    chain_id: CHAIN_ID,
    assets: tokens.stocks.map(({ asset, token, aggregator }) => ({
      symbol: asset.symbol,
      contract_address: token,
      decimals: TOKEN_DECIMALS,
      is_native: false,
      price_feed: aggregator,
      default_price_usd: asset.priceUsd,
    })),
    service_token: { address: tokens.serviceToken, decimals: 18 },
    settlement_asset: { address: tokens.stablecoin, decimals: 6 },
    venue: {
      state_view: uniswap.stateView,
      pool_manager: uniswap.poolManager,
      quote_token: { address: tokens.stablecoin, decimals: 6 },
      fee: anyPool.fee,
      tick_spacing: anyPool.tickSpacing,
      hooks: anyPool.hooks,
      swap_helper: uniswap.swapHelper,
    },
    multicall3,
  };
}

function contractsOf(
  tokens: TokenDeployment,
  hostile: HostileDeployment,
  uniswap: UniswapDeployment,
  multicall3: Address,
): Omit<DevnetContracts, 'permitGuard' | 'guardedSwapRouter'> {
  return {
    serviceToken: tokens.serviceToken,
    stablecoin: tokens.stablecoin,
    ...uniswap,
    multicall3,
    aggregators: Object.fromEntries(tokens.stocks.map(({ asset, aggregator }) => [asset.symbol, aggregator])),
    hostile,
  };
}
