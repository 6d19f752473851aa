// What a contract is, read from chain: its code and privileged functions, proxy slots, decimals and owner.
import { getAddress, parseAbi, zeroAddress, type Address, type Hex, type PublicClient } from 'viem';
import { ChainUnavailableError, orOnRevert } from '../chain/errors.js';
import { readMany } from '../chain/multicall.js';
import { scanBytecode, type BytecodeScan } from './bytecode.js';
import { capabilitiesOf, type Capability } from './selectors.js';

/** EIP-1967 storage slots: keccak256('eip1967.proxy.<name>') - 1. */
export const EIP1967_SLOTS = {
  implementation: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  admin: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
} as const satisfies Record<string, Hex>;

const probeAbi = parseAbi([
  'function owner() view returns (address)',
  'function decimals() view returns (uint8)',
  'function getThreshold() view returns (uint256)',
  'function getOwners() view returns (address[])',
  'function implementation() view returns (address)',
]);

export type OwnerKind = 'none' | 'renounced' | 'eoa' | 'multisig' | 'contract';

export interface OwnerFacts {
  /** `none`: the contract has no owner(); `renounced`: owner() is the zero address. */
  kind: OwnerKind;
  address: Address | null;
  threshold: number | null;
  signers: number | null;
}

export interface ProxyFacts {
  kind: 'eip1967' | 'beacon' | 'clone';
  implementation: Address;
  admin: Address | null;
}

export interface ContractFacts {
  address: Address;
  hasCode: boolean;
  /** Privileged functions of the code that runs: the implementation's as well when proxied. */
  capabilities: Map<Capability, string[]>;
  selfdestruct: boolean;
  /** DELEGATECALL outside a proxy's own forwarding. */
  delegatecall: boolean;
  proxy: ProxyFacts | null;
  owner: OwnerFacts;
  decimals: number | null;
}

export async function readContractFacts(client: PublicClient, multicall3: Address, token: string): Promise<ContractFacts> {
  const address = getAddress(token);
  const [code, slots, answers] = await Promise.all([
    codeAt(client, address),
    Promise.all(Object.values(EIP1967_SLOTS).map((slot) => storageAt(client, address, slot))),
    readMany(client, multicall3, [
      { address, abi: probeAbi, functionName: 'owner' },
      { address, abi: probeAbi, functionName: 'decimals' },
    ], `owner read of ${address}`),
  ]);
  const none: OwnerFacts = { kind: 'none', address: null, threshold: null, signers: null };
  if (code === '0x') {
    return { address, hasCode: false, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, owner: none, decimals: null };
  }
  const scan = scanBytecode(code);
  const [owner, decimals] = answers;
  // The proxy's implementation and the owner are read in the same round trip.
  const [proxy, ownerRead] = await Promise.all([
    proxyOf(client, scan, slots).then(async (found) => ({ found, code: found ? await codeAt(client, found.implementation) : null })),
    owner.ok ? ownerFacts(client, multicall3, owner.value as Address) : Promise.resolve(none),
  ]);
  const running = proxy.code ? mergeScans(scan, scanBytecode(proxy.code)) : scan;
  return {
    address,
    hasCode: true,
    capabilities: capabilitiesOf(running.selectors),
    selfdestruct: running.selfdestruct,
    delegatecall: proxy.found === null && scan.delegatecall,
    proxy: proxy.found,
    owner: ownerRead,
    decimals: decimals.ok ? Number(decimals.value) : null,
  };
}

async function proxyOf(client: PublicClient, scan: BytecodeScan, [implementation, beacon, admin]: Hex[]): Promise<ProxyFacts | null> {
  const adminAddress = slotAddress(admin);
  if (slotAddress(implementation)) return { kind: 'eip1967', implementation: slotAddress(implementation)!, admin: adminAddress };
  const beaconAddress = slotAddress(beacon);
  if (beaconAddress) {
    const target = await orOnRevert(
      client.readContract({ address: beaconAddress, abi: probeAbi, functionName: 'implementation' }),
      null,
      `beacon read of ${beaconAddress}`,
    );
    if (target && target !== zeroAddress) return { kind: 'beacon', implementation: target, admin: adminAddress };
  }
  return scan.cloneOf ? { kind: 'clone', implementation: scan.cloneOf, admin: null } : null;
}

async function ownerFacts(client: PublicClient, multicall3: Address, owner: Address): Promise<OwnerFacts> {
  if (owner === zeroAddress) return { kind: 'renounced', address: owner, threshold: null, signers: null };
  // Asked together (one round trip with a batching client); an EOA simply answers no reads.
  const [code, [threshold, signers]] = await Promise.all([
    codeAt(client, owner),
    readMany(client, multicall3, [
      { address: owner, abi: probeAbi, functionName: 'getThreshold' },
      { address: owner, abi: probeAbi, functionName: 'getOwners' },
    ], `owner contract read of ${owner}`),
  ]);
  if (code === '0x') return { kind: 'eoa', address: owner, threshold: null, signers: null };
  const m = threshold.ok ? Number(threshold.value) : null;
  const n = signers.ok ? (signers.value as readonly Address[]).length : null;
  // Safe's interface: a threshold of two or more signers is a multisig; one signer is a single key.
  return { kind: m !== null && m >= 2 ? 'multisig' : 'contract', address: owner, threshold: m, signers: n };
}

function mergeScans(proxy: BytecodeScan, implementation: BytecodeScan): BytecodeScan {
  return {
    selectors: new Set([...proxy.selectors, ...implementation.selectors]),
    selfdestruct: proxy.selfdestruct || implementation.selfdestruct,
    delegatecall: proxy.delegatecall || implementation.delegatecall,
    cloneOf: proxy.cloneOf,
  };
}

function slotAddress(word: Hex): Address | null {
  const value = BigInt(word === '0x' ? 0 : word);
  return value === 0n ? null : getAddress(`0x${value.toString(16).padStart(64, '0').slice(24)}`);
}

async function codeAt(client: PublicClient, address: Address): Promise<Hex> {
  try {
    return (await client.getCode({ address })) ?? '0x';
  } catch (error) {
    throw new ChainUnavailableError(`code read of ${address}`, error);
  }
}

async function storageAt(client: PublicClient, address: Address, slot: Hex): Promise<Hex> {
  try {
    return (await client.getStorageAt({ address, slot })) ?? '0x';
  } catch (error) {
    throw new ChainUnavailableError(`storage read of ${address}`, error);
  }
}
