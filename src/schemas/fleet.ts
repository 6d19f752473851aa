// The fleet routes' bodies (ARCHITECTURE.md "Fleets"): a delegation as the operator registers it, and the fleet as it lists it.
import { Type } from '@sinclair/typebox';
import { Address } from './common.js';
import { WalletLimits } from './resources.js';

/** The FleetDelegation fields the agent signed (EIP-712), and its signature. */
export const FleetDelegationRequest = Type.Object(
  {
    agent: Address,
    operator: Address,
    expiry: Type.Integer({ minimum: 1, maximum: 253_402_300_799, description: 'Seconds since the epoch; the delegation ends then.' }),
    nonce: Type.String({ pattern: '^[0-9]{1,78}$', description: 'The uint256 nonce the agent signed, in decimal digits.' }),
    signature: Type.String({ pattern: '^0x[a-fA-F0-9]+$', maxLength: 4096 }),
  },
  { additionalProperties: false },
);

export const AgentPath = Type.Object({ agent: Address });

export const FleetDelegationInForce = Type.Object({
  operator: Type.String(),
  expiry: Type.Integer(),
  nonce: Type.String(),
  /** Milliseconds since the epoch. */
  registered_at: Type.Integer(),
});

export const FleetDelegationResponse = Type.Object({ agent: Type.String(), delegation: FleetDelegationInForce });

export const FleetEndResponse = Type.Object({
  agent: Type.String(),
  /** False when there was no delegation in force to end. */
  ended: Type.Boolean(),
  operator: Type.Union([Type.String(), Type.Null()]),
});

const Count = Type.Integer({ minimum: 0 });

export const FleetAgent = Type.Object({
  agent: Type.String(),
  delegation: FleetDelegationInForce,
  blocked_assets: Type.Array(Type.String()),
  limits: Type.Union([WalletLimits, Type.Null()]),
  daily_budget: Type.Object({
    /** The UTC day, YYYY-MM-DD. */
    day: Type.String(),
    used_usd: Type.Number(),
    limit_usd: Type.Union([Type.Number(), Type.Null()]),
    left_usd: Type.Union([Type.Number(), Type.Null()]),
  }),
  verdicts_24h: Type.Object({
    allow: Count,
    warn: Count,
    deny: Count,
    error: Count,
    /** How many of the agent's newest audit records were read for the counts. */
    records_read: Count,
    /** True when the read stopped at its bound while still inside the 24 hours: the counts are then at least these. */
    capped: Type.Boolean(),
  }),
});

export const FleetListing = Type.Object({ operator: Type.String(), count: Count, agents: Type.Array(FleetAgent) });
