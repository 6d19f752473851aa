// Deploys the hostile tokens the token-safety checker must recognise, each funded for a pool.
import { encodeFunctionData, type Address } from 'viem';
import type { Artifacts } from './compile.js';
import type { TxSender } from './sender.js';
import { mintPlan, MULTISIG_OWNERS, MULTISIG_THRESHOLD, type DemoWallet } from './wallets.js';
import { DEPLOYER_HOSTILE_TOKENS, TOKEN_DECIMALS, WALLET_HOSTILE_TOKENS, units } from './assets.js';

export interface HostileDeployment {
  honeypot: Address;
  feeOnTransfer: Address;
  blacklist: Address;
  multisigOwned: Address;
  multisig: Address;
  renounced: Address;
  proxy: Address;
  proxyImplementation: Address;
}

/** The hostile tokens that get a pool, with the symbol each pool is listed under. */
export type HostileToken = Exclude<keyof HostileDeployment, 'multisig' | 'proxyImplementation'>;
export const HOSTILE_TOKENS: Readonly<Record<HostileToken, { name: string; symbol: string }>> = {
  honeypot: { name: 'Honeypot Token', symbol: 'HPOT' },
  feeOnTransfer: { name: 'Fee On Transfer Token', symbol: 'FOT' },
  blacklist: { name: 'Blacklist Pausable Token', symbol: 'BLPS' },
  multisigOwned: { name: 'Multisig Owned Token', symbol: 'MSIG' },
  renounced: { name: 'Renounced Token', symbol: 'RNCD' },
  proxy: { name: 'Upgradeable Proxy Token', symbol: 'PRXY' },
};

export async function deployHostile(
  sender: TxSender,
  artifacts: Artifacts,
  wallets: readonly DemoWallet[],
  poolManager: Address,
): Promise<HostileDeployment> {
  const owner = sender.address;
  const named = (key: HostileToken): [string, string, Address] => [HOSTILE_TOKENS[key].name, HOSTILE_TOKENS[key].symbol, owner];
  const multisig = await sender.deploy('multisig', artifacts.SimpleMultisig, [MULTISIG_OWNERS, MULTISIG_THRESHOLD]);
  const deployed: HostileDeployment = {
    multisig,
    honeypot: await sender.deploy('honeypot', artifacts.HoneypotToken, [...named('honeypot'), poolManager]),
    feeOnTransfer: await sender.deploy('fee-on-transfer', artifacts.FeeOnTransferToken, named('feeOnTransfer')),
    blacklist: await sender.deploy('blacklist', artifacts.BlacklistPausableToken, named('blacklist')),
    multisigOwned: await sender.deploy('multisig-owned', artifacts.MintableToken, named('multisigOwned')),
    renounced: await sender.deploy('renounced', artifacts.MintableToken, named('renounced')),
    ...(await deployProxy(sender, artifacts, named('proxy'))),
  };
  for (const key of Object.keys(HOSTILE_TOKENS) as HostileToken[]) {
    await fund(sender, artifacts, deployed[key], wallets, key);
  }
  // Ownership moves last: minting above still needed the deployer as owner.
  const abi = artifacts.MintableToken.abi;
  await sender.call('multisig-owned transferOwnership', deployed.multisigOwned, abi, 'transferOwnership', [multisig]);
  await sender.call('renounced renounceOwnership', deployed.renounced, abi, 'renounceOwnership');
  return deployed;
}

/** OpenZeppelin's ERC1967Proxy in front of the UUPS token, initialised in its constructor. */
async function deployProxy(
  sender: TxSender,
  artifacts: Artifacts,
  [name, symbol, owner]: [string, string, Address],
): Promise<Pick<HostileDeployment, 'proxy' | 'proxyImplementation'>> {
  const implementation = artifacts.UpgradeableToken;
  const proxyImplementation = await sender.deploy('proxy implementation', implementation);
  const init = encodeFunctionData({ abi: implementation.abi, functionName: 'initialize', args: [name, symbol, owner] });
  const proxy = await sender.deploy('proxy', artifacts.ERC1967Proxy, [proxyImplementation, init]);
  return { proxy, proxyImplementation };
}

/** The deployer keeps a large balance to seed the pool; each demo wallet gets a small one to sell. */
async function fund(
  sender: TxSender,
  artifacts: Artifacts,
  token: Address,
  wallets: readonly DemoWallet[],
  key: HostileToken,
): Promise<void> {
  const [deployerAmount, walletAmount] = [units(DEPLOYER_HOSTILE_TOKENS, TOKEN_DECIMALS), units(WALLET_HOSTILE_TOKENS, TOKEN_DECIMALS)];
  const plan = mintPlan(sender.address, wallets, deployerAmount, walletAmount);
  const abi = key === 'proxy' ? artifacts.UpgradeableToken.abi : artifacts.MintableToken.abi;
  await sender.call(`${key} mintBatch`, token, abi, 'mintBatch', plan);
}
