// The EIP-712 FleetDelegation an agent wallet signs: "operator O may set my limits until T", and its check.
import { verifyTypedData, type Address, type Hex } from 'viem';
import { SERVICE } from '../catalogue/published-facts.js';

/** The domain's name and version; with the chain id they bind a signature to this service on this chain. */
export const DELEGATION_DOMAIN = Object.freeze({ name: SERVICE.name, version: '1' } as const);

/** Field order and types are what the agent signs; docs/fleet-limits.md "Fleets" prints them. */
export const FLEET_DELEGATION_TYPES = {
  FleetDelegation: [
    { name: 'agent', type: 'address' },
    { name: 'operator', type: 'address' },
    { name: 'expiry', type: 'uint64' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** A delegation as the operator sends it: the signed fields, addresses lower-cased, and the agent's signature. */
export interface FleetDelegation {
  agent: string;
  operator: string;
  /** Seconds since the epoch; the delegation ends at this second. */
  expiry: number;
  /** Decimal digits: any number the agent picks, so one delegation ended can never be registered again. */
  nonce: string;
  signature: string;
}

export function delegationDomain(chainId: number) {
  return { ...DELEGATION_DOMAIN, chainId };
}

/**
 * Whether the agent itself signed exactly these fields for this service and chain (ARCHITECTURE.md
 * "Fleets"). viem recovers the signer of the typed data; a signature that cannot be parsed is false.
 */
export async function signedByAgent(delegation: FleetDelegation, chainId: number): Promise<boolean> {
  try {
    return await verifyTypedData({
      address: delegation.agent as Address,
      domain: delegationDomain(chainId),
      types: FLEET_DELEGATION_TYPES,
      primaryType: 'FleetDelegation',
      message: {
        agent: delegation.agent as Address,
        operator: delegation.operator as Address,
        expiry: BigInt(delegation.expiry),
        nonce: BigInt(delegation.nonce),
      },
      signature: delegation.signature as Hex,
    });
  } catch {
    return false;
  }
}
