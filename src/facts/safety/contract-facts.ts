// What a contract is, from the two round trips' answers: its code and privileged functions, proxy slots, decimals, supply cap and owner.
import { decodeFunctionResult, getAddress, parseAbi, type Address, type Hex } from 'viem';
import { scanBytecode, type BytecodeScan } from './bytecode.js';
import type { FirstRound } from './first-round.js';
import { capabilitiesOf, type Capability } from './selectors.js';
import { readTimelock, type TimelockLegs } from './timelock-probe.js';

/** What the owner contract is asked inside the simulation (ARCHITECTURE.md "Token safety": no third round trip). */
export const ownerFactsAbi = parseAbi([
  'function getThreshold() view returns (uint256)',
  'function getOwners() view returns (address[])',
  'function implementation() view returns (address)',
]);

export type OwnerKind = 'none' | 'renounced' | 'eoa' | 'multisig' | 'timelock' | 'contract';

export interface OwnerFacts {
  /** `none`: the contract has no owner(); `renounced`: owner() is the zero address. */
  kind: OwnerKind;
  address: Address | null;
  threshold: number | null;
  signers: number | null;
  /** A timelock's claimed delay (getMinDelay() or delay()), in seconds; null for any other owner. */
  delaySeconds?: number | null;
  /** Why an owner contract that claims a delay is no timelock (ARCHITECTURE.md "Token safety"); absent when it claims none. */
  notTimelock?: string | null;
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
  /** The code that runs has a call instruction; without one a transfer can ask no other contract. */
  makesCalls?: boolean;
  proxy: ProxyFacts | null;
  owner: OwnerFacts;
  decimals: number | null;
  /** cap() and totalSupply() when the token answers them (an ERC20Capped mint). */
  cap?: bigint | null;
  totalSupply?: bigint | null;
}

/** The proxy as its slots say, before round trip 2 reads the implementation's code (a beacon's target is read then). */
export interface ProxySlots {
  implementation: Address | null;
  beacon: Address | null;
  admin: Address | null;
  clone: Address | null;
}

/** What round trip 2 answered about the owner and the implementation. */
export interface SecondRoundFacts {
  ownerCode: Hex | null;
  /** The owner's answers to getThreshold() and getOwners(), and the timelock probe's legs, from the simulation; null: not asked or not run. */
  ownerAnswers: { threshold: Hex | null; owners: Hex | null; timelock: TimelockLegs | null } | null;
  implementationCode: Hex | null;
  beaconImplementation: Address | null;
}

export function proxySlots(first: FirstRound, scan: BytecodeScan): ProxySlots {
  const [implementation, beacon, admin] = first.proxySlots.map(slotAddress);
  return { implementation, beacon, admin, clone: scan.cloneOf };
}

/** `scan`: the token's code as planCheck scanned it, so a cold check scans it once. */
export function contractFacts(first: FirstRound, second: SecondRoundFacts, scan: BytecodeScan | null = first.code === '0x' ? null : scanBytecode(first.code)): ContractFacts {
  const none: OwnerFacts = { kind: 'none', address: null, threshold: null, signers: null, delaySeconds: null };
  const base = { address: first.token, decimals: first.decimals, cap: first.cap, totalSupply: first.totalSupply };
  if (first.code === '0x' || scan === null) {
    return { ...base, hasCode: false, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, owner: none, decimals: null };
  }
  const proxy = proxyOf(proxySlots(first, scan), second.beaconImplementation);
  const running = second.implementationCode ? mergeScans(scan, scanBytecode(second.implementationCode)) : scan;
  return {
    ...base,
    hasCode: true,
    capabilities: capabilitiesOf(running.selectors),
    selfdestruct: running.selfdestruct,
    delegatecall: proxy === null && scan.delegatecall,
    makesCalls: running.calls,
    proxy,
    owner: first.owner === null ? none : ownerFacts(first.owner, second),
  };
}

function proxyOf(slots: ProxySlots, beaconTarget: Address | null): ProxyFacts | null {
  if (slots.implementation) return { kind: 'eip1967', implementation: slots.implementation, admin: slots.admin };
  if (slots.beacon && beaconTarget && BigInt(beaconTarget) !== 0n) return { kind: 'beacon', implementation: beaconTarget, admin: slots.admin };
  return slots.clone ? { kind: 'clone', implementation: slots.clone, admin: null } : null;
}

function ownerFacts(owner: Address, second: SecondRoundFacts): OwnerFacts {
  const facts: OwnerFacts = { kind: 'eoa', address: owner, threshold: null, signers: null, delaySeconds: null };
  if (BigInt(owner) === 0n) return { ...facts, kind: 'renounced' };
  if (second.ownerCode === null || second.ownerCode === '0x') return facts;
  const answers = second.ownerAnswers;
  const m = word(answers?.threshold);
  const n = signers(answers?.owners ?? null);
  const lock = readTimelock(answers?.timelock ?? null);
  const counted = { threshold: m === null ? null : Number(m), signers: n };
  // Safe's interface: a threshold of two or more signers is a multisig; one signer is a single key.
  if (m !== null && m >= 2n) return { ...facts, kind: 'multisig', threshold: Number(m), signers: n };
  // A timelock by behaviour, whatever its ABI: a call queued through it waited past the threshold and then ran.
  if (lock.shown && lock.claim) return { ...facts, ...counted, kind: 'timelock', delaySeconds: lock.claim.seconds };
  return { ...facts, ...counted, kind: 'contract', ...(lock.refuted ? { notTimelock: lock.refuted } : {}) };
}

function word(data: Hex | null | undefined): bigint | null {
  return data && data.length === 66 ? BigInt(data) : null;
}

function signers(data: Hex | null): number | null {
  if (!data || data === '0x') return null;
  try {
    return decodeFunctionResult({ abi: ownerFactsAbi, functionName: 'getOwners', data }).length;
  } catch {
    return null;
  }
}

function mergeScans(proxy: BytecodeScan, implementation: BytecodeScan): BytecodeScan {
  return {
    selectors: new Set([...proxy.selectors, ...implementation.selectors]),
    selfdestruct: proxy.selfdestruct || implementation.selfdestruct,
    delegatecall: proxy.delegatecall || implementation.delegatecall,
    calls: proxy.calls || implementation.calls,
    cloneOf: proxy.cloneOf,
    addresses: new Set([...proxy.addresses, ...implementation.addresses]),
  };
}

function slotAddress(word: Hex): Address | null {
  const value = BigInt(word === '0x' ? 0 : word);
  return value === 0n ? null : getAddress(`0x${value.toString(16).padStart(64, '0').slice(24)}`);
}
