// Deploys the registry's stock tokens with their price feeds, the service token and the stablecoin.
import type { Address } from 'viem';
import type { Artifacts } from './compile.js';
import type { TxSender } from './sender.js';
import { mintPlan, type DemoWallet } from './wallets.js';
import {
  DEPLOYER_STABLE_USD,
  DEPLOYER_STOCK_TOKENS,
  FEED_DECIMALS,
  STABLE_DECIMALS,
  STALE_FEED_AGE_SECONDS,
  STOCKS,
  TOKEN_DECIMALS,
  WALLET_STABLE_USD,
  WALLET_STOCK_TOKENS,
  units,
  type StockAsset,
} from './assets.js';

export interface StockDeployment {
  asset: StockAsset;
  token: Address;
  aggregator: Address;
}

export interface TokenDeployment {
  serviceToken: Address;
  stablecoin: Address;
  stocks: StockDeployment[];
}

export const SERVICE_TOKEN = { name: 'Guardrail Service Token', symbol: 'GUARD' } as const;

export async function deployTokens(
  sender: TxSender,
  artifacts: Artifacts,
  wallets: readonly DemoWallet[],
): Promise<TokenDeployment> {
  const stablecoin = await deployStablecoin(sender, artifacts, wallets);
  const serviceToken = await deployServiceToken(sender, artifacts, wallets);
  const stocks: StockDeployment[] = [];
  for (const asset of STOCKS) stocks.push(await deployStock(sender, artifacts, wallets, asset));
  return { serviceToken, stablecoin, stocks };
}

async function deployStablecoin(sender: TxSender, artifacts: Artifacts, wallets: readonly DemoWallet[]): Promise<Address> {
  const artifact = artifacts.AuthorizedStablecoin;
  const address = await sender.deploy('stablecoin', artifact, [sender.address]);
  const [deployerAmount, walletAmount] = [units(DEPLOYER_STABLE_USD, STABLE_DECIMALS), units(WALLET_STABLE_USD, STABLE_DECIMALS)];
  const plan = mintPlan(sender.address, wallets, deployerAmount, walletAmount);
  await sender.call('stablecoin mintBatch', address, artifact.abi, 'mintBatch', plan);
  return address;
}

/** Only wallets with a non-zero plan are minted to, so wallet A really holds none. */
async function deployServiceToken(sender: TxSender, artifacts: Artifacts, wallets: readonly DemoWallet[]): Promise<Address> {
  const artifact = artifacts.MintableToken;
  const address = await sender.deploy('service token', artifact, [SERVICE_TOKEN.name, SERVICE_TOKEN.symbol, sender.address]);
  const funded = wallets.filter((wallet) => wallet.serviceTokens > 0);
  const amounts = funded.map((wallet) => units(BigInt(wallet.serviceTokens), TOKEN_DECIMALS));
  await sender.call('service token mintBatch', address, artifact.abi, 'mintBatch', [funded.map((w) => w.address), amounts]);
  return address;
}

async function deployStock(
  sender: TxSender,
  artifacts: Artifacts,
  wallets: readonly DemoWallet[],
  asset: StockAsset,
): Promise<StockDeployment> {
  const artifact = artifacts.StockToken;
  const token = await sender.deploy(`${asset.symbol} token`, artifact, [asset.name, asset.symbol, sender.address]);
  const [deployerAmount, walletAmount] = [units(DEPLOYER_STOCK_TOKENS, TOKEN_DECIMALS), units(WALLET_STOCK_TOKENS, TOKEN_DECIMALS)];
  const plan = mintPlan(sender.address, wallets, deployerAmount, walletAmount);
  await sender.call(`${asset.symbol} mintBatch`, token, artifact.abi, 'mintBatch', plan);
  const answer = BigInt(Math.round(asset.priceUsd * 10 ** FEED_DECIMALS));
  const age = asset.staleFeed ? STALE_FEED_AGE_SECONDS : 0;
  const aggregator = await sender.deploy(`${asset.symbol} feed`, artifacts.DevnetAggregator, [
    `${asset.symbol} / USD`,
    FEED_DECIMALS,
    answer,
    age,
    sender.address,
  ]);
  return { asset, token, aggregator };
}
