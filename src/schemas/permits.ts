// The published permit signer: the address guards trust and the EIP-712 domain its permits use.
import { Type, type Static } from '@sinclair/typebox';
import { Address } from './common.js';

export const PermitSigner = Type.Object(
  {
    address: Address,
    chain_id: Type.Integer(),
    guard: Type.Union([Address, Type.Null()], { description: 'The TradePermitGuard the permits are for (EIP-712 verifyingContract); null: this service issues none' }),
    domain: Type.Object({ name: Type.Literal('TradePermitGuard'), version: Type.Literal('1') }, { additionalProperties: false }),
    primary_type: Type.Literal('TradePermit'),
    types: Type.Object({}, { additionalProperties: true, description: 'The EIP-712 types, as viem and eth_signTypedData_v4 take them' }),
    ttl_seconds: Type.Integer({ minimum: 1, description: 'How long a permit is valid after its verdict' }),
  },
  { additionalProperties: false, description: 'The key that signs trade permits and where they are enforced' },
);
export type PermitSigner = Static<typeof PermitSigner>;
