// Anvil's well-known development keys and the demo wallets built from them, one per tier.
import type { Address, Hex } from 'viem';
import { minTokensFor } from '../../risk/tiers.js';

/**
 * The mnemonic anvil, Hardhat and Foundry ship by default. Its keys are PUBLIC: anyone can
 * spend what they hold on any real network, so they are for this local devnet only.
 */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const ANVIL_ACCOUNT_COUNT = 10;

/** Accounts 0..9 of ANVIL_MNEMONIC (m/44'/60'/0'/0/i); the test checks them against anvil. */
export const ANVIL_DEV_ACCOUNTS: readonly { address: Address; privateKey: Hex }[] = [
  { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' },
  { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' },
  { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' },
  { address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' },
  { address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' },
  { address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', privateKey: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' },
  { address: '0x976EA74026E726554dB657fA54763abd0C3a0aa9', privateKey: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e' },
  { address: '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955', privateKey: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' },
  { address: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f', privateKey: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' },
  { address: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720', privateKey: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6' },
];

export interface DemoWallet {
  label: string;
  /** The tier the wallet's service-token holdings earn (no tokens still get Tier 1). */
  tier: 1 | 2 | 3;
  address: Address;
  /** Anvil's public development key: never use it with real funds. */
  privateKey: Hex;
  /** Whole service tokens held. */
  serviceTokens: number;
}

/** Account 0 deploys and owns everything; a fixed deployer and order give fixed addresses. */
export const DEPLOYER = ANVIL_DEV_ACCOUNTS[0];

/**
 * Account 8 is the embedded x402 facilitator: it submits `transferWithAuthorization` and pays
 * the gas. It holds no stablecoin, so a payment it settles never moves its own funds.
 */
export const FACILITATOR_ACCOUNT = ANVIL_DEV_ACCOUNTS[8];

/** Account 9 receives x402 payments on the devnet (PAY_TO_ADDRESS's default): not a demo wallet, not the deployer. */
export const TREASURY: Address = ANVIL_DEV_ACCOUNTS[9].address;

/** Accounts 5..7 own the 2-of-3 multisig, so its owners can really sign proposals. */
export const MULTISIG_OWNERS: readonly Address[] = ANVIL_DEV_ACCOUNTS.slice(5, 8).map((account) => account.address);
export const MULTISIG_THRESHOLD = 2;

/** One wallet with no service tokens (still Tier 1), then one holding exactly each tier's threshold (src/risk/tiers.ts). */
const DEMO_PLAN: readonly { label: string; tier: 1 | 2 | 3; serviceTokens: number }[] = [
  { label: 'A', tier: 1, serviceTokens: 0 },
  { label: 'B', tier: 1, serviceTokens: minTokensFor(1) },
  { label: 'C', tier: 2, serviceTokens: minTokensFor(2) },
  { label: 'D', tier: 3, serviceTokens: minTokensFor(3) },
];

/** Demo wallets A..D are anvil accounts 1..4. */
export function demoWallets(): DemoWallet[] {
  return DEMO_PLAN.map((plan, index) => ({ ...plan, ...ANVIL_DEV_ACCOUNTS[index + 1] }));
}

/** mintBatch arguments giving the deployer one amount (to seed pools) and every demo wallet another. */
export function mintPlan(
  deployer: Address,
  wallets: readonly DemoWallet[],
  deployerAmount: bigint,
  walletAmount: bigint,
): [Address[], bigint[]] {
  return [
    [deployer, ...wallets.map((wallet) => wallet.address)],
    [deployerAmount, ...wallets.map(() => walletAmount)],
  ];
}
