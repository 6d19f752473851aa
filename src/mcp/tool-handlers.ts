// What each MCP tool does: validate its arguments, call the shared capability, shape the result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runOnce, type AnalyzeDeps } from '../api/analyze.js';
import { errorVerdict, type EvaluationRequest } from '../evaluation/evaluate-trade.js';
import type { Registry } from '../registry/registry.js';
import { compileValidator, type Validator } from '../schemas/validator.js';
import type { McpTradeRequest } from '../schemas/trade.js';
import { TOOL_DEFINITIONS } from './tool-definitions.js';
import { CHANNEL_TIERS, PAYMENT, tierLabel } from '../catalogue/published-facts.js';

export interface PaymentTerms {
  network: string;
  asset: string;
  amount: string;
  pay_to: string;
  resource: string;
  max_timeout_seconds: number;
}

/** Capabilities the tools call; those not yet available on this service answer with an error result. */
export interface McpToolDeps {
  analyze: AnalyzeDeps;
  registry: Registry;
  payment: PaymentTerms | null;
  checkTokenSafety?: (address: string) => Promise<Record<string, unknown>>;
  simulateBalance?: (args: { token_address: string; holder: string; delta: number; decimals: number }) => Promise<Record<string, unknown>>;
  verifyWalletTrail?: (wallet: string, limit: number) => Promise<Record<string, unknown>>;
}

type ToolHandler = (args: Record<string, unknown>) => Promise<CallToolResult>;

export function result(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** Spec: a failed tool carries an `error` string; MCP marks it isError. */
export function failure(error: string, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
}

const validators = new Map<string, Validator<Record<string, unknown>>>(
  TOOL_DEFINITIONS.map((tool) => [tool.name, compileValidator(tool.inputSchema, 'body') as Validator<Record<string, unknown>>]),
);

export function toolHandlers(deps: McpToolDeps): Map<string, ToolHandler> {
  return new Map<string, ToolHandler>([
    ['evaluate_trade', (args) => evaluate(deps, args as McpTradeRequest)],
    ['evaluate_trade_paid', (args) => evaluatePaid(deps, args)],
    ['check_token_safety', (args) => optional(deps.checkTokenSafety, (check) => check(String(args.contract_address)))],
    ['simulate_balance', (args) => optional(deps.simulateBalance, (simulate) => simulate(args as never))],
    ['get_supported_assets', async () => result({ assets: supportedAssets(deps.registry) })],
    ['verify_audit_trail', (args) => optional(deps.verifyWalletTrail, (verify) => verify(String(args.wallet), Number(args.limit)))],
  ]);
}

/** Validates the arguments with the same compiled schema the tool lists, then runs the handler. */
export async function callTool(handlers: Map<string, ToolHandler>, name: string, args: unknown): Promise<CallToolResult> {
  const handler = handlers.get(name);
  const validate = validators.get(name);
  if (!handler || !validate) return failure(`unknown tool ${name}`);
  const checked = validate(args ?? {});
  if (!checked.ok) return failure('invalid arguments', { detail: checked.detail.map((issue) => ({ ...issue, loc: issue.loc.slice(1) })) });
  try {
    return await handler(checked.value);
  } catch (error) {
    return failure(`${name} failed: ${(error as Error).message}`);
  }
}

async function optional<T>(capability: T | undefined, run: (capability: T) => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  if (!capability) return failure('this capability is not available on this service');
  const answer = await run(capability);
  return typeof answer.error === 'string' ? failure(answer.error, answer) : result(answer);
}

function supportedAssets(registry: Registry) {
  return registry.assets.map((asset) => ({
    symbol: asset.symbol,
    contract_address: asset.contract_address,
    decimals: asset.decimals,
    is_native: asset.is_native,
  }));
}

/** MCP is always Tier 1 and shares the per-wallet window with REST (spec "Limits"). */
async function evaluate(deps: McpToolDeps, args: McpTradeRequest): Promise<CallToolResult> {
  const request: EvaluationRequest = {
    trade: {
      wallet: args.wallet,
      asset: args.asset,
      contract_address: args.contract_address,
      side: args.side,
      amount: args.amount,
      max_slippage_bps: args.max_slippage_bps ?? 100,
      deadline: null,
      allow_unregistered: false,
      request_id: args.request_id ?? null,
    },
    body: args as Record<string, unknown>,
    tier: CHANNEL_TIERS.mcp,
    channel: 'mcp',
  };
  const outcome = await runOnce(deps.analyze, request).catch((error: Error) => ({
    kind: 'error' as const,
    verdict: errorVerdict(request, error.message, deps.analyze.evaluation.now()),
  }));
  switch (outcome.kind) {
    case 'verdict': {
      const { timestamp: _t, contract_risk: _c, daily_pnl_usd: _d, error: _e, ...verdict } = outcome.verdict;
      return result(verdict);
    }
    case 'error':
      return failure(outcome.verdict.error ?? 'evaluation failed');
    case 'limited':
      return failure(`rate limited: ${outcome.limit} evaluations per ${outcome.windowMs / 1000} s for this wallet; retry after ${Math.ceil(outcome.retryAfterMs / 1000)} s`);
    case 'conflict':
      return failure('request_id was already used with different arguments; use a new request_id for a new trade');
  }
}

async function evaluatePaid(deps: McpToolDeps, args: Record<string, unknown>): Promise<CallToolResult> {
  if (!deps.payment) return failure('paid evaluation is not configured on this service (no settlement asset or PAY_TO_ADDRESS)');
  if (args.payment_proof === undefined) {
    return result({
      status: 'payment_required',
      ...deps.payment,
      description: `One trade evaluation at ${tierLabel(PAYMENT.tierGranted)}`,
      tier_granted: PAYMENT.tierGranted,
    });
  }
  // Until proofs can be verified with a facilitator, a proof never buys a verdict.
  return failure('payment proofs cannot be verified on this service yet; no verdict was produced, do not trade');
}
