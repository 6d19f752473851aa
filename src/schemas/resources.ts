// The spec's remaining resources: registry, policy, auth, balance, token safety, audit.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PAYMENT_REFUSALS } from '../catalogue/payment-refusals.js';
import { MAX_AUDIT_PARTITIONS } from '../config.js';
import { Address, OpenObject, TokenDelta } from './common.js';

export const AssetInfo = Type.Object({
  symbol: Type.String(),
  contract_address: Type.String(),
  is_native: Type.Boolean({ default: false }),
  decimals: Type.Integer({ default: 18 }),
});
export type AssetInfo = Static<typeof AssetInfo>;

/** A wallet's own limits on the wire (ARCHITECTURE.md "Fleet limits"); null or absent: none of that kind. */
export const WalletLimits = Type.Object(
  {
    max_trade_usd: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }), Type.Null()], {
      description: 'Notional ceiling per trade (USD); at most the tier\'s max_trade_usd.',
    })),
    daily_notional_usd: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }), Type.Null()], {
      description: 'Notional of allowed and warned buys and sells together per UTC day, on every channel and instance.',
    })),
    allowed_assets: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 256 }), Type.Null()], {
      description: 'Registry symbols the wallet may trade; absent or null allows all.',
    })),
    allowed_sides: Type.Optional(Type.Union([
      Type.Array(Type.Union([Type.Literal('buy'), Type.Literal('sell')]), { minItems: 1, maxItems: 2, uniqueItems: true }), Type.Null(),
    ], { description: '`["buy"]`, `["sell"]` or both.' })),
    max_slippage_bps: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()], {
      description: 'The highest max_slippage_bps a request may carry.',
    })),
  },
  { additionalProperties: false },
);
export type WalletLimitsBody = Static<typeof WalletLimits>;

export const PolicyConfig = Type.Object({
  wallet: Type.Union([Type.String(), Type.Null()]),
  max_trade_usd: Type.Union([Type.Number(), Type.Null()]),
  blocked_assets: Type.Array(Type.String()),
  /** Every field present, null where unset; null when the wallet set no limits. */
  limits: Type.Union([WalletLimits, Type.Null()]),
  editable: Type.Boolean({ default: false }),
});

export const UpdateConfigRequest = Type.Object(
  {
    blocked_assets: Type.Array(Type.String({ minLength: 1, maxLength: 42 }), { maxItems: 256 }),
    /** Absent: the limits stay as they are; null: all removed; an object replaces them all. */
    limits: Type.Optional(Type.Union([WalletLimits, Type.Null()])),
  },
  { additionalProperties: false },
);

export const NonceQuery = Type.Object({ address: Address }, { additionalProperties: true });
export const NonceResponse = Type.Object({ message: Type.String() });
export const WalletLoginRequest = Type.Object(
  { address: Address, signature: Type.String({ pattern: '^0x[a-fA-F0-9]+$', maxLength: 4096 }) },
  { additionalProperties: false },
);
export const WalletLoginResponse = Type.Object({
  access_token: Type.String(),
  expires_in_seconds: Type.Integer(),
  preview_mode: Type.Boolean({ default: false }),
});
export const RevokeResponse = Type.Object({ revoked: Type.Boolean() });

export const SimulateBalanceRequest = Type.Object(
  {
    token_address: Address,
    holder: Address,
    delta: TokenDelta,
    balance_slot: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 64 }), Type.Null()])),
    decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36, default: 18 })),
  },
  { additionalProperties: false },
);
export const SimulateBalanceResponse = Type.Object({
  token_address: Type.String(),
  holder: Type.String(),
  balance_slot: Type.Integer(),
  current: Type.Number(),
  delta: Type.Number(),
  post_trade: Type.Number(),
});

export const TokenSafetyRequest = Type.Object({ contract_address: Address }, { additionalProperties: false });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const BaseUnits = Type.String({ pattern: '^[0-9]+$', description: 'base units, as a decimal string' });
const Bps = Type.Integer({ minimum: 0, maximum: 10_000 });
/** One simulated sell: after how long a hold, by which path, and what it lost. */
const SimulatedSell = Type.Object(
  {
    held_seconds: Type.Integer({ minimum: 0 }),
    held_blocks: Type.Integer({ minimum: 0 }),
    via: Type.Union([Type.Literal('transfer'), Type.Literal('transfer_from')], { description: 'transfer: the holder paid out itself; transfer_from: a router (or spender) it approved pulled the tokens' }),
    ok: Type.Boolean(),
    sell_tax_bps: Nullable(Bps),
  },
  { additionalProperties: false },
);
/** What a throwaway buyer lived through (methodology "Token safety"); `{}` when the address has no code. */
export const SellSimulation = Type.Object(
  {
    ok: Type.Boolean({ description: 'acquired, then sold at once and after every hold horizon, by transfer and by transferFrom' }),
    simulated: Type.Boolean(),
    not_a_token: Type.Boolean(),
    method: Nullable(Type.Union([Type.Literal('venue_v4'), Type.Literal('holder_transfer'), Type.Literal('state_override')], { description: 'how the holder acquired the token' })),
    sold_via: Nullable(Type.Union([Type.Literal('venue_v4'), Type.Literal('transfer')])),
    probe: Nullable(Type.String({ pattern: '^0x[a-fA-F0-9]{40}$' })),
    bought: Nullable(BaseUnits),
    amount_in: Nullable(BaseUnits),
    paid: Nullable(BaseUnits),
    received: Nullable(BaseUnits),
    buy_tax_bps: Nullable(Type.Integer({ minimum: 0, maximum: 10_000 })),
    sell_tax_bps: Nullable(Type.Integer({ minimum: 0, maximum: 10_000 })),
    tax_bps: Nullable(Type.Integer({ minimum: 0, maximum: 10_000, description: 'the sell tax, as before buy_tax_bps existed' })),
    buy_ok: Nullable(Type.Boolean()),
    sell_fresh_ok: Nullable(Type.Boolean()),
    sell_held_ok: Nullable(Type.Boolean()),
    wallet_transfer_ok: Nullable(Type.Boolean()),
    own_transfer_ok: Nullable(Type.Boolean({ description: 'a holder without code (a plain wallet) sent the token with its own transfer after the longest hold; null without a proven balance slot' })),
    sized_sell_ok: Nullable(Type.Boolean({ description: "a holder sold a sizeable share of the pool's depth (sized_sell_amount) at once; null without a live pool and a proven balance slot" })),
    sized_sell_amount: Nullable(BaseUnits),
    transfer_from_ok: Nullable(Type.Boolean({ description: 'every approve-and-transferFrom sell (the way routers sell) went through' })),
    sells: Type.Array(SimulatedSell, { description: 'every simulated sell in time order; sell_tax_bps above is the worst of them' }),
    owner_powers: Nullable(Type.Array(
      Type.Object(
        {
          selector: Type.String({ pattern: '^0x[0-9a-f]{8}$' }),
          signature: Nullable(Type.String()),
          effect: Type.Union([Type.Literal('took'), Type.Literal('gave'), Type.Literal('blocked')]),
        },
        { additionalProperties: false },
      ),
      { description: "functions of the token's dispatcher that, called by its owner with probing arguments, took a holder's tokens, gave it tokens, or stopped its transfers; null when not probed" },
    )),
    base_fee_wei: Nullable(BaseUnits),
    gas_price_wei: Nullable(BaseUnits),
    revert_reason: Nullable(Type.String()),
    detail: Type.String(),
  },
  { additionalProperties: false },
);

export const TokenSafety = Type.Object({
  severity: Type.Union([Type.Literal('safe'), Type.Literal('warn'), Type.Literal('danger')]),
  is_honeypot: Type.Boolean(),
  risk_factors: Type.Array(Type.String()),
  owner_renounced: Type.Boolean(),
  owner_is_multisig: Type.Boolean(),
  sell_simulation: Type.Union([SellSimulation, Type.Object({}, { additionalProperties: false })]),
});

/** `limit` of the audit operations: default 100, 1 to 1000 (the agent-facing bound). */
export const AuditQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) },
  { additionalProperties: true },
);
export const WalletPath = Type.Object({ wallet: Address });

/** Paging for replay: the facts of records from `from_seq`, at most `limit` records (facts are a few KB each). */
export const AuditFactsQuery = Type.Object(
  {
    from_seq: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  { additionalProperties: true },
);

/** Paging for the bulk verifier: stored lines from `from_seq`, at most `limit` of them. */
export const AuditExportQuery = Type.Object(
  {
    from_seq: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  },
  { additionalProperties: true },
);

/** On a partitioned log (AUDIT_PARTITIONS > 1), which chain an export or a proof reads; read only there. */
export const AuditChainQuery = Type.Object(
  { chain: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_AUDIT_PARTITIONS - 1, default: 0, description: 'The chain, 0 to AUDIT_PARTITIONS - 1' })) },
  { additionalProperties: true },
);

export const AuditWalletResponse = Type.Object({
  wallet: Type.String(),
  count: Type.Integer(),
  records: Type.Array(OpenObject),
});
export const AuditGlobalResponse = Type.Object({ count: Type.Integer(), records: Type.Array(OpenObject) });
/** Beyond the spec's table: `first_broken_seq`, the sequence number of the first broken link (null when healthy), as MCP reports it. */
const FirstBrokenSeq = Type.Optional(Type.Union([Type.Integer(), Type.Null()]));
export const AuditVerifyResponse = Type.Object({
  wallet: Type.String(),
  total: Type.Integer(),
  tampered: Type.Integer(),
  healthy: Type.Boolean(),
  records: Type.Array(OpenObject),
  first_broken_seq: FirstBrokenSeq,
});
export const AuditVerifyGlobalResponse = Type.Object({
  total: Type.Integer(),
  tampered: Type.Integer(),
  healthy: Type.Boolean(),
  records: Type.Array(OpenObject),
  first_broken_seq: FirstBrokenSeq,
});

export const ValidationErrorItem = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
  input: Type.Optional(Type.Unknown()),
  ctx: Type.Optional(OpenObject),
});
export const HTTPValidationError = Type.Object({ detail: Type.Array(ValidationErrorItem) });

export const PaymentChallenge = Type.Object({
  status: Type.Literal('payment_required'),
  network: Type.String(),
  asset: Type.String(),
  amount: Type.String(),
  pay_to: Type.String(),
  resource: Type.String(),
  description: Type.String(),
  max_timeout_seconds: Type.Integer(),
  tier_granted: Type.Literal(2),
  /** Beyond the spec's table: the stablecoin's EIP-712 domain and the x402 version, so a client signs without a lookup. */
  extra: Type.Object({ name: Type.String(), version: Type.String() }),
  x402_version: Type.Literal(1),
});

/** The settlement receipt of a paid verdict, as the PAYMENT-RESPONSE header carries it. */
export const PaymentReceipt = Type.Object({
  success: Type.Literal(true),
  transaction: Type.String(),
  network: Type.String(),
  payer: Type.String(),
});

/** One entry of a REST 402's `accepts`: x402 v1 payment requirements (docs/x402.md). */
export const PaymentRequirementsV1 = Type.Object({
  scheme: Type.Literal('exact'),
  network: Type.String(),
  maxAmountRequired: Type.String({ pattern: '^[0-9]+$', description: 'Base units of the settlement asset' }),
  resource: Type.String(),
  description: Type.String(),
  mimeType: Type.String(),
  /** What the payment buys: the TradeRequest to POST and the Verdict that comes back. */
  outputSchema: Type.Optional(OpenObject),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Integer(),
  asset: Type.String(),
  /** The asset's EIP-712 domain, so a client signs without a lookup. */
  extra: Type.Optional(Type.Object({ name: Type.String(), version: Type.String() })),
});

/** The REST 402 body, the spec's v1 envelope; `reason` names a refusal. PAYMENT-REQUIRED carries X402PaymentRequired. */
export const X402Challenge = Type.Object({
  x402Version: Type.Literal(1),
  error: Type.String(),
  reason: Type.Optional(Type.Unsafe<keyof typeof PAYMENT_REFUSALS>({ type: 'string', enum: Object.keys(PAYMENT_REFUSALS) })),
  accepts: Type.Array(PaymentRequirementsV1, { minItems: 1 }),
});

/** The same terms in x402 v2's field names: one entry of X402PaymentRequired's `accepts`. */
export const PaymentRequirementsV2 = Type.Object({
  scheme: Type.Literal('exact'),
  network: Type.String(),
  asset: Type.String(),
  amount: Type.String({ pattern: '^[0-9]+$', description: 'Base units of the settlement asset' }),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Integer(),
  extra: Type.Object({ name: Type.String(), version: Type.String() }),
});

/** The PAYMENT-REQUIRED header of a 402 (base64 JSON): an x402 v2 PaymentRequired, what stock v2 clients read first. */
export const X402PaymentRequired = Type.Object({
  x402Version: Type.Literal(2),
  error: Type.String(),
  resource: Type.Object({ url: Type.String(), description: Type.String(), mimeType: Type.String() }),
  accepts: Type.Array(PaymentRequirementsV2, { minItems: 1 }),
});
