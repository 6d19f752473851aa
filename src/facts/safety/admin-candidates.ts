// Addresses that may be admins beside owner(): those held in the token's first storage slots, its code's address constants (PUSH20, immutables) and role grants in its logs.
import { getAddress, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';

/** The storage slots read for a stored admin: an ERC-20's own variables, Ownable's and a dozen of the token's. */
export const ADMIN_SLOT_COUNT = 16;

/** At most this many candidates are called as, so a token full of constants cannot blow the simulation's budget. */
export const MAX_ADMIN_CANDIDATES = 4;

const roleGranted = parseAbiItem('event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)');

/** Where a candidate was found, in the words a risk factor uses. */
export interface AdminCandidate {
  address: Address;
  source: string;
}

/** Slots 0 to ADMIN_SLOT_COUNT - 1 of the token, read in round trip 1 (ARCHITECTURE.md "Token safety"). */
export function readAdminSlots(client: PublicClient, token: Address): Promise<Hex[]> {
  return Promise.all(Array.from({ length: ADMIN_SLOT_COUNT }, (_, slot) => client.getStorageAt({ address: token, slot: `0x${slot.toString(16)}` }).then((word) => word ?? '0x')));
}

/**
 * Accounts granted an OpenZeppelin AccessControl role, newest last. Logs are optional evidence as
 * for recent holders: a node that refuses the range gives none.
 */
export async function readRoleHolders(client: PublicClient, token: Address, fromBlock: bigint | 'earliest'): Promise<Address[]> {
  try {
    const logs = await client.getLogs({ address: token, event: roleGranted, fromBlock, toBlock: 'latest' });
    return logs.flatMap((log) => (log.args.account ? [getAddress(log.args.account)] : []));
  } catch {
    return [];
  }
}

export interface CandidateSources {
  token: Address;
  owner: Address | null;
  slots: readonly Hex[];
  constants: ReadonlySet<Address>;
  roleHolders: readonly Address[];
  /** Addresses that are no admin of this token: the registry's contracts (the venue, its assets). */
  excluded: ReadonlySet<string>;
}

/**
 * Every address the code could compare the caller with: a storage word that holds an address and
 * nothing else, an address constant of the code, a role holder. Never the token, owner() or a
 * registry contract. Role holders come first (a grant is an admin for certain), then slots, then constants.
 */
export function adminCandidates(sources: CandidateSources): AdminCandidate[] {
  const skip = new Set([sources.token, sources.owner ?? '0x0000000000000000000000000000000000000000'].map((a) => a.toLowerCase()));
  for (const address of sources.excluded) skip.add(address);
  const found: AdminCandidate[] = [];
  const add = (address: Address, source: string) => {
    if (skip.has(address.toLowerCase())) return;
    skip.add(address.toLowerCase());
    found.push({ address, source });
  };
  for (const address of [...sources.roleHolders].reverse()) add(address, 'granted a role (RoleGranted)');
  sources.slots.forEach((word, slot) => {
    const address = storedAddress(word);
    if (address) add(address, `held in storage slot ${slot}`);
  });
  for (const address of sources.constants) add(address, 'a constant of the code');
  return found.slice(0, MAX_ADMIN_CANDIDATES);
}

/**
 * A word holding one address alone: the top 12 bytes zero and the address's top 4 bytes not, so
 * counts, flags and short strings are not taken. An address packed beside other variables is not read.
 */
function storedAddress(word: Hex): Address | null {
  const hex = word.toLowerCase().replace(/^0x/, '').padStart(64, '0');
  if (hex.length !== 64 || !/^0{24}$/.test(hex.slice(0, 24)) || /^0{8}$/.test(hex.slice(24, 32))) return null;
  return getAddress(`0x${hex.slice(24)}`);
}
