// The six MCP tools: names, descriptions, input and output schemas, annotations. The server and the card share them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CHANNEL_TIERS, PAYMENT, tierLabel } from '../catalogue/published-facts.js';
import { Address, TokenDelta } from './common.js';
import { PaymentChallenge, PaymentReceipt } from './resources.js';
import { McpTradeRequest, Verdict } from './trade.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: TSchema;
  outputSchema: TSchema;
}

/** Spec "MCP interface": every tool is read-only, non-destructive and idempotent. */
export const TOOL_ANNOTATIONS = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
});

/** The spec's tool output: the Verdict without what REST adds (time, contract risk, daily P&L) and without `error`, which a tool reports as an error result. */
export const VerdictOutput = Type.Omit(Verdict, ['timestamp', 'contract_risk', 'daily_pnl_usd', 'error']);
export type VerdictOutput = Static<typeof VerdictOutput>;

/** evaluate_trade_paid's input: the MCP trade and the optional payment payload. */
export const PaidTradeInput = Type.Object(
  { ...McpTradeRequest.properties, payment_proof: Type.Optional(Type.String({ minLength: 1, maxLength: 16384 })) },
  { additionalProperties: false },
);
export type PaidTradeInput = Static<typeof PaidTradeInput>;

/** The payment challenge (spec "Payment challenge") or, once paid, the verdict. */
const ChallengeOrVerdict = Type.Object({
  ...Type.Partial(PaymentChallenge).properties,
  ...Type.Partial(VerdictOutput).properties,
  payment_response: Type.Optional(PaymentReceipt),
});

const ERROR_NOTE =
  'If the result is an error (isError, with an `error` string), no result was produced: treat it as a failure, never as success.';

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'evaluate_trade',
    title: 'Evaluate a trade before executing it',
    description:
      'Call before every trade on Robinhood Chain (chain 4663). Returns allow, warn or deny with reasons, a 0-100 risk score, ' +
      'the USD price and its source, and the hash and sequence number of the audit record written for this decision. ' +
      `Always ${tierLabel(CHANNEL_TIERS.mcp)}. ` +
      'Resolve `asset` and `contract_address` with get_supported_assets first: ' +
      'an address that does not match the registry entry for the symbol is denied as a suspected fake token. `amount` is ' +
      'in token units, not USD. Reuse `request_id` only to retry a call whose answer you never saw. deny means do not trade; ' +
      'warn and deny say what would be allowed (max_allowed_amount, tier_needed, retry_after_seconds, next_market_open); ' +
      'with `permit: true` an allow carries a signed TradePermit for the on-chain guard. ' +
      `reasons starting with ADVISORY: are context only. ${ERROR_NOTE} For a trade, an error is a hard stop: do not trade.`,
    inputSchema: McpTradeRequest,
    outputSchema: VerdictOutput,
  },
  {
    name: 'evaluate_trade_paid',
    title: 'Evaluate a trade at Tier 2, paid per call with x402',
    description:
      `The same evaluation as evaluate_trade at ${tierLabel(PAYMENT.tierGranted)}, paid per call. Call it without ` +
      '`payment_proof` to get the payment challenge (status payment_required: network, asset, amount in base units, pay_to, ' +
      'resource, max_timeout_seconds, and extra: the EIP-712 name and version of the asset). Sign an EIP-3009 ' +
      'TransferWithAuthorization for exactly those terms with any x402 client, then call again with the same trade and ' +
      '`payment_proof` set to the base64 JSON x402 payment payload (what the X-PAYMENT or PAYMENT-SIGNATURE header would carry). ' +
      'The service verifies it, evaluates, settles the payment through its facilitator and returns the verdict with ' +
      '`payment_response` (the settlement transaction). One payment buys one verdict: the same proof with the same trade ' +
      'returns the same verdict without a second charge; with another trade it is refused. ' +
      ERROR_NOTE,
    inputSchema: PaidTradeInput,
    outputSchema: ChallengeOrVerdict,
  },
  {
    name: 'check_token_safety',
    title: 'Check a token contract for honeypot and ownership risks',
    description:
      'Heuristic safety check of an ERC-20 contract (bytecode analysis, owner checks, a simulated sell; not an audit). ' +
      'Returns severity safe, warn or danger, the risk factors found, and whether a simulated sell succeeded. A danger ' +
      `result makes the next evaluation of that contract a deny for 24 hours. ${ERROR_NOTE} On error do not assume the token is safe.`,
    inputSchema: Type.Object({ contract_address: Address }, { additionalProperties: false }),
    outputSchema: Type.Object({
      severity: Type.Union([Type.Literal('safe'), Type.Literal('warn'), Type.Literal('danger')]),
      risk_factors: Type.Array(Type.String()),
      sell_simulation_ok: Type.Boolean(),
    }),
  },
  {
    name: 'simulate_balance',
    title: 'Simulate a token balance after a trade',
    description:
      "Reads the holder's current balance of a token and returns it before and after a signed change `delta` " +
      '(negative means spend), in token units as decimal strings. Read-only: uses eth_call with a state override and ' +
      `never sends a transaction. ${ERROR_NOTE}`,
    inputSchema: Type.Object(
      {
        token_address: Address,
        holder: Address,
        delta: TokenDelta,
        decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36, default: 18 })),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({ before: Type.String(), after: Type.String(), delta: Type.String() }),
  },
  {
    name: 'get_supported_assets',
    title: 'List the official asset registry',
    description:
      'The official registry: each symbol with its canonical contract address, decimals and whether it is native. Use it ' +
      'to fill `asset` and `contract_address` before evaluate_trade, and refresh it periodically rather than caching it ' +
      `forever. ${ERROR_NOTE}`,
    inputSchema: Type.Object({}, { additionalProperties: false }),
    outputSchema: Type.Object({
      assets: Type.Array(
        Type.Object({
          symbol: Type.String(),
          contract_address: Type.String(),
          decimals: Type.Integer({ default: 18 }),
          is_native: Type.Boolean({ default: false }),
        }),
      ),
    }),
  },
  {
    name: 'verify_audit_trail',
    title: "Verify a wallet's audit trail",
    description:
      "Recomputes the SHA-256 hash of the wallet's newest `limit` audit records and checks their chain links. healthy is " +
      'true only when every hash and link holds; first_broken_seq names the first record that fails. ' +
      `${ERROR_NOTE} On error do not assume the chain is intact.`,
    inputSchema: Type.Object(
      { wallet: Address, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({
      healthy: Type.Boolean(),
      records_checked: Type.Integer(),
      first_broken_seq: Type.Union([Type.Integer(), Type.Null()]),
    }),
  },
];

/** Plain JSON Schema as the wire carries it (TypeBox's bookkeeping and $id removed). */
export function wireSchema(schema: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

/**
 * What an `isError` result carries (tool-results.ts `failure`): the spec's `error` and the catalogue
 * `code`, with whatever the failure adds (`detail` for bad arguments, `reason` and `challenge` for a
 * refused payment, the error verdict's fields).
 */
export const ToolError = Type.Object(
  { error: Type.String({ description: 'No result was produced: treat the call as failed' }), code: Type.String({ description: 'Stable code from the error catalogue' }) },
  { additionalProperties: true },
);

/**
 * The declared output: the tool's result or the error shape. Clients validate structured content
 * against it on error results too (the official SDK client after listTools), so both must be in it.
 * MCP wants an object schema at the root; `anyOf` picks the shape.
 */
export function outputSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  return { type: 'object', anyOf: [wireSchema(tool.outputSchema), wireSchema(ToolError)] };
}

export function listedTools() {
  return TOOL_DEFINITIONS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: wireSchema(tool.inputSchema),
    outputSchema: outputSchemaOf(tool),
    annotations: { title: tool.title, ...TOOL_ANNOTATIONS },
  }));
}
