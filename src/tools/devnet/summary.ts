// What a person needs to use a running devnet: assets, contracts, demo wallets with their keys, where payments go.
import { WALLET_STABLE_USD } from './assets.js';
import type { Devnet } from './devnet.js';

export const KEY_WARNING = "These are anvil's well-known development keys: they are public, never use them with real funds.";

export function devnetSummary(devnet: Devnet): string[] {
  const { contracts } = devnet;
  const assets = devnet.registry.assets.map((asset) => {
    const stale = devnet.staleFeeds.includes(asset.symbol) ? '  (feed deliberately stale)' : '';
    return `  ${asset.symbol.padEnd(5)} ${asset.contract_address}  feed ${asset.price_feed}  $${asset.default_price_usd}${stale}`;
  });
  const wallets = devnet.wallets.map((w) => {
    const holdings = `${String(w.serviceTokens).padStart(5)} service tokens, ${WALLET_STABLE_USD} USDC`;
    return `  ${w.label}  tier ${w.tier}  ${holdings}  ${w.address}  key ${w.privateKey}`;
  });
  return [
    ...assets,
    `  service token ${contracts.serviceToken}  stablecoin (USDC, 6 decimals, EIP-3009) ${contracts.stablecoin}`,
    `  Uniswap v4 PoolManager ${contracts.poolManager}  StateView ${contracts.stateView}  SwapHelper ${contracts.swapHelper}`,
    `  TradePermitGuard ${contracts.permitGuard} (trusts the service's permit signer)  GuardedSwapRouter ${contracts.guardedSwapRouter}`,
    `  x402 payments go to the treasury ${devnet.treasury}; the facilitator account ${devnet.facilitator.address} pays the gas`,
    'Demo wallets:',
    ...wallets,
    KEY_WARNING,
  ];
}
