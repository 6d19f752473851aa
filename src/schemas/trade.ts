// The one trade shape (REST's TradeRequest, MCP's variant derived from it) and the Verdict, as the spec's tables define them.
import { Type, type Static } from '@sinclair/typebox';
import type { TradeInput } from '../risk/types.js';
import { Address, Decision, OpenObject, PriceSource, Tier, TokenAmount } from './common.js';
import { ErrorCode } from './errors.js';

const Side = Type.Union([Type.Literal('buy'), Type.Literal('sell')]);
const RequestId = Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()]);

/** The spec's defaults for what a caller may leave out; a record's request leaves out a member equal to its default. */
export const TRADE_DEFAULTS = Object.freeze({ max_slippage_bps: 100, allow_unregistered: false, permit: false });

/** The trade, stated once: REST's body of the analyze operations (slippage 0-1000), and what every channel's variant is cut from. */
export const TradeRequest = Type.Object(
  {
    wallet: Address,
    asset: Type.String({ minLength: 1, maxLength: 32 }),
    contract_address: Address,
    side: Side,
    amount: TokenAmount,
    request_id: Type.Optional(RequestId),
    // docs/enforcing-on-chain.md: an `allow` then carries a signed TradePermit.
    permit: Type.Optional(
      Type.Boolean({ default: TRADE_DEFAULTS.permit, description: 'true: an `allow` verdict carries an EIP-712 TradePermit that the on-chain TradePermitGuard checks; `warn` and `deny` never do' }),
    ),
    max_slippage_bps: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: TRADE_DEFAULTS.max_slippage_bps })),
    // Unix seconds; the spec leaves the unit open, ARCHITECTURE.md "Deadline" and the methodology fix it.
    deadline: Type.Optional(Type.Union([Type.Integer({ exclusiveMinimum: 0 }), Type.Null()])),
    allow_unregistered: Type.Optional(Type.Boolean({ default: TRADE_DEFAULTS.allow_unregistered })),
  },
  { additionalProperties: false, $id: 'TradeRequest' },
);
export type TradeRequest = Static<typeof TradeRequest>;

/** MCP tool input: the trade without deadline and allow_unregistered, its slippage 0-10000 (spec "MCP interface"). */
export const McpTradeRequest = Type.Object(
  {
    ...Type.Omit(TradeRequest, ['max_slippage_bps', 'deadline', 'allow_unregistered']).properties,
    max_slippage_bps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, default: TRADE_DEFAULTS.max_slippage_bps })),
  },
  { additionalProperties: false, $id: 'McpTradeRequest' },
);
export type McpTradeRequest = Static<typeof McpTradeRequest>;

/**
 * The engine's trade (src/risk/types.ts `TradeInput`, which the pure engine owns since it imports
 * nothing above it) from any channel's validated trade, with the defaults a variant leaves out.
 * Typed against TradeInput, so a field the engine adds or retypes fails to compile here.
 */
export function engineTrade(trade: TradeRequest): TradeInput & { request_id: string | null } {
  return {
    wallet: trade.wallet,
    asset: trade.asset,
    contract_address: trade.contract_address,
    side: trade.side,
    amount: trade.amount,
    max_slippage_bps: trade.max_slippage_bps ?? TRADE_DEFAULTS.max_slippage_bps,
    deadline: trade.deadline ?? null,
    allow_unregistered: trade.allow_unregistered ?? TRADE_DEFAULTS.allow_unregistered,
    request_id: trade.request_id ?? null,
  };
}

/**
 * What would turn a `warn` or `deny` into `allow`, each present only when the engine computed it
 * exactly from the same facts; never on an `error` (methodology "Counterfactuals").
 */
export const counterfactualFields = {
  max_allowed_amount: Type.Optional(
    Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], {
      description: 'Largest `amount` (token units, on the asset\'s base-unit grid) the same request with the same facts would `allow` at this tier, as the JSON number the service reads; null when no amount would',
    }),
  ),
  retry_after_seconds: Type.Optional(Type.Integer({ minimum: 1, description: 'The per-wallet window weighed in: seconds until it no longer does' })),
  next_market_open: Type.Optional(Type.Integer({ description: 'Market hours weighed in: Unix time (s) of the next NYSE regular-session open' })),
  tier_needed: Type.Optional(
    Type.Object(
      { tier: Tier, min_tokens: Type.Number({ description: 'Service-token holdings that grant the tier' }) },
      { additionalProperties: false, description: 'The lowest higher tier whose ceiling would allow the same request' },
    ),
  ),
};

const Uint256 = Type.String({ pattern: '^[0-9]{1,78}$', description: 'uint256 in decimal' });
const Bytes32 = Type.String({ pattern: '^0x[0-9a-f]{64}$' });

/** An EIP-712 TradePermit as signed (src/evaluation/permits/trade-permit.ts); the guard's typehash fixes the fields. */
export const TradePermit = Type.Object(
  {
    domain: Type.Object(
      { name: Type.Literal('TradePermitGuard'), version: Type.Literal('1'), chainId: Type.Integer(), verifyingContract: Address },
      { additionalProperties: false },
    ),
    message: Type.Object(
      {
        wallet: Address,
        token: Address,
        side: Type.Union([Type.Literal(0), Type.Literal(1)], { description: '0 buy, 1 sell' }),
        maxAmount: Uint256,
        maxNotionalUsdCents: Uint256,
        expiry: Type.Integer({ description: 'Unix time (s) after which the guard refuses the permit' }),
        auditSeq: Type.Integer({ minimum: 0 }),
        auditHash: Bytes32,
        nonce: Uint256,
      },
      { additionalProperties: false },
    ),
    signer: Address,
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
  },
  { additionalProperties: false, description: 'Signed by the service key published as `permit_signer`; pass it to the guard with the trade' },
);

export const Verdict = Type.Object(
  {
    decision: Decision,
    reasons: Type.Array(Type.String()),
    tier: Tier,
    max_trade_usd: Type.Number(),
    calculated_notional_usd: Type.Number(),
    price_impact_bps: Type.Union([Type.Number(), Type.Null()], {
      description: "The trade's price impact on the registry venue's v4 pool at the evaluated block, in basis points (fees excluded); null when no pool was read",
    }),
    price_usd: Type.Number({ default: 0 }),
    price_source: PriceSource,
    risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
    timestamp: Type.Integer(),
    request_id: Type.Union([Type.String(), Type.Null()]),
    contract_risk: Type.Union([OpenObject, Type.Null()]),
    daily_pnl_usd: Type.Number({ default: 0 }),
    audit_hash: Type.Union([Type.String(), Type.Null()]),
    audit_seq: Type.Union([Type.Integer(), Type.Null()]),
    audit_chain: Type.Optional(Type.Integer({
      minimum: 0,
      description: 'Only on a service whose audit log is partitioned (AUDIT_PARTITIONS > 1): the chain that holds the record; `audit_seq` counts within it',
    })),
    ...counterfactualFields,
    permit: Type.Optional(TradePermit),
    error: Type.Optional(Type.String()),
  },
  { $id: 'Verdict' },
);
export type Verdict = Static<typeof Verdict>;

/** HTTP 503 of an evaluation: no verdict was produced, `error` says which step failed, `code` names it. Do not trade. */
export const ErrorVerdict = Type.Intersect([Verdict, Type.Object({ error: Type.String(), code: ErrorCode })]);
