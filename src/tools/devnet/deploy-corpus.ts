// Deploys the labelled token corpus (contracts/corpus/) onto a running devnet, on demand, with pools and holders.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Address } from 'viem';
import { HOSTILE_POOL_DEPTH_USD, HOSTILE_PRICE_USD, CHAIN_ID } from './assets.js';
import { compileContracts } from './compile.js';
import { seedPools } from './deploy-pools.js';
import type { Devnet } from './devnet.js';
import { TxSender } from './sender.js';
import { CORPUS_DIR, repoRoot } from './sources.js';
import { DEPLOYER } from './wallets.js';

export type Severity = 'safe' | 'warn' | 'danger';

/** One labelled token: exactly one of `contract`, `proxy` or `registry` says where it comes from. */
export interface CorpusLabel {
  id: string;
  contract?: string;
  proxy?: boolean;
  registry?: string;
  pool?: boolean;
  renounce?: boolean;
  severity: Severity;
  /** The risk-factor code that must justify the severity; null for safe. */
  reason: string | null;
  /** Risk-factor codes the result must not carry: factors a wrong reading once gave it. */
  absent?: string[];
  why: string;
}

export interface CorpusToken extends CorpusLabel {
  address: Address;
}

export function corpusLabels(): CorpusLabel[] {
  const file = join(repoRoot(), CORPUS_DIR, 'labels.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { tokens: CorpusLabel[] }).tokens;
}

/** What each ordinary holder is sent, so a token without a pool has real holders to buy from. */
const HOLDER_TOKENS = 1_000n * 10n ** 18n;
const PROXY_SUPPLY = 1_000_000n * 10n ** 18n;

/**
 * Every transaction comes from the devnet's deployer. Corpus contracts are compiled apart
 * from the devnet's own (their own solc cache file), so a devnet start never pays for them.
 */
export async function deployCorpus(devnet: Devnet, options: { cacheDir?: string; log?: (line: string) => void; ids?: readonly string[] } = {}): Promise<CorpusToken[]> {
  const root = repoRoot();
  const cacheDir = options.cacheDir ?? process.env.DEVNET_CACHE_DIR ?? join(root, '.cache', 'solc');
  const [corpus, main] = await Promise.all([
    compileContracts({ root, cacheDir, log: options.log, corpus: true }),
    compileContracts({ root, cacheDir, log: options.log }),
  ]);
  const client = createPublicClient({ chain: devnet.chain, transport: http(devnet.rpcUrl) });
  const sender = await TxSender.open(client, DEPLOYER.privateKey, CHAIN_ID);
  const manager = devnet.contracts.poolManager;
  const holders = devnet.wallets.slice(0, 2).map((wallet) => wallet.address);
  const tokens: CorpusToken[] = [];
  // A test that needs a few tokens deploys only those (`ids`); the bench and the corpus test deploy every one.
  for (const label of corpusLabels().filter((l) => !options.ids || options.ids.includes(l.id))) {
    if (label.registry) {
      tokens.push({ ...label, address: registryAddress(devnet, label.registry) });
      continue;
    }
    const address = label.proxy
      ? await deployProxy(sender, main.artifacts, label.id)
      : await sender.deploy(label.id, corpus.artifacts[label.contract!], [manager]);
    for (const holder of holders) await sender.call(`${label.id} to holder`, address, erc20Abi, 'transfer', [holder, HOLDER_TOKENS]);
    tokens.push({ ...label, address });
  }
  const pooled = tokens.filter((token) => !token.registry && token.pool);
  const plans = pooled.map((token) => ({ symbol: token.id, token: token.address, priceUsd: HOSTILE_PRICE_USD, depthUsd: HOSTILE_POOL_DEPTH_USD }));
  await seedPools(sender, main.artifacts, { ...devnet.contracts }, devnet.contracts.stablecoin, plans);
  for (const token of tokens.filter((t) => t.renounce)) {
    await sender.call(`${token.id} renounceOwnership`, token.address, main.artifacts.MintableToken.abi, 'renounceOwnership');
  }
  await sender.confirmAll();
  options.log?.(`devnet: corpus of ${tokens.length} labelled tokens deployed (${pooled.length} with pools)`);
  return tokens;
}

async function deployProxy(sender: TxSender, artifacts: Awaited<ReturnType<typeof compileContracts>>['artifacts'], id: string): Promise<Address> {
  const implementation = await sender.deploy(`${id} implementation`, artifacts.UpgradeableToken);
  const init = encodeFunctionData({ abi: artifacts.UpgradeableToken.abi, functionName: 'initialize', args: [id, 'UUPS', sender.address] });
  const proxy = await sender.deploy(id, artifacts.ERC1967Proxy, [implementation, init]);
  await sender.call(`${id} mint`, proxy, artifacts.UpgradeableToken.abi, 'mintBatch', [[sender.address], [PROXY_SUPPLY]]);
  return proxy;
}

function registryAddress(devnet: Devnet, name: string): Address {
  const [kind, key] = name.split(':');
  if (kind === 'asset') return devnet.registry.assets.find((asset) => asset.symbol === key)!.contract_address as Address;
  if (kind === 'hostile') return devnet.contracts.hostile[key as keyof Devnet['contracts']['hostile']];
  return devnet.contracts[kind as 'serviceToken' | 'stablecoin'];
}
