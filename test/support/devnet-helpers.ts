// Helpers for the devnet integration test: process and port checks, storage slots, clients.
import { createServer } from 'node:net';
import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  http,
  keccak256,
  toHex,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Devnet } from '../../src/tools/devnet/devnet.js';

export function publicClientFor(devnet: Devnet): PublicClient {
  return createPublicClient({ chain: devnet.chain, transport: http(devnet.rpcUrl), pollingInterval: 50 });
}

export function walletClientFor(devnet: Devnet, privateKey: Hex): WalletClient<HttpTransport, Chain, PrivateKeyAccount> {
  return createWalletClient({ account: privateKeyToAccount(privateKey), chain: devnet.chain, transport: http(devnet.rpcUrl) });
}

/** The accounts anvil itself unlocks (eth_accounts). */
export async function anvilAccounts(devnet: Devnet): Promise<Address[]> {
  return createWalletClient({ transport: http(devnet.rpcUrl) }).getAddresses();
}

/** True while a process with this pid exists (signal 0 only checks). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Slot of `mapping(address => uint256)` entry `holder` for a mapping rooted at `root`. */
export function mappingSlot(holder: Address, root: bigint | Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, BigInt(root)]));
}

/** ERC-7201: keccak256(abi.encode(uint256(keccak256(id)) - 1)) & ~0xff. */
export function erc7201Slot(id: string): Hex {
  const inner = BigInt(keccak256(toHex(id))) - 1n;
  const outer = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [inner])));
  return toHex(outer & ~0xffn, { size: 32 });
}

export const EIP1967_IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

/**
 * What an exact-input swap pays out from a single full-range v4 position: constant product
 * on the virtual reserves x0 = L / sqrtP and x1 = L * sqrtP, after the LP fee (in pips).
 */
export function fullRangeQuote(liquidity: bigint, sqrtPriceX96: bigint, zeroForOne: boolean, amountIn: bigint, feePips = 3000): number {
  const sqrtPrice = Number(sqrtPriceX96) / 2 ** 96;
  const [reserveIn, reserveOut] = zeroForOne
    ? [Number(liquidity) / sqrtPrice, Number(liquidity) * sqrtPrice]
    : [Number(liquidity) * sqrtPrice, Number(liquidity) / sqrtPrice];
  const netIn = (Number(amountIn) * (1_000_000 - feePips)) / 1_000_000;
  return (reserveOut * netIn) / (reserveIn + netIn);
}
