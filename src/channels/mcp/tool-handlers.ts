// What each MCP tool does: validate its arguments with the listed schema, then call its adapter.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EntryDeps } from '../../evaluation/entry.js';
import { INTERNAL_ERROR, logFailure, type Logger } from '../../catalogue/failures.js';
import { compileValidator, type Validator } from '../../schemas/validator.js';
import type { McpTradeRequest } from '../../schemas/trade.js';
import { checkTokenSafety, simulateBalance, supportedAssets, verifyAuditTrail, type CapabilityDeps } from './capability-tools.js';
import { TOOL_DEFINITIONS, type PaidTradeInput } from '../../schemas/mcp-tools.js';
import { failure } from './tool-results.js';
import type { PaidDeps } from '../../evaluation/paid/paid-evaluation.js';
import { evaluateTrade, evaluateTradePaid } from './trade-tools.js';

export interface McpToolDeps extends CapabilityDeps {
  entry: EntryDeps;
  /** The paid evaluation; null when no settlement asset, payee or facilitator is configured. */
  paid: PaidDeps | null;
}

type ToolHandler = (args: Record<string, unknown>) => Promise<CallToolResult>;
/** Each tool's handler by name; built once and shared by every session. */
export type ToolHandlers = Map<string, ToolHandler>;

const validators = new Map<string, Validator<Record<string, unknown>>>(
  TOOL_DEFINITIONS.map((tool) => [tool.name, compileValidator(tool.inputSchema, 'body') as Validator<Record<string, unknown>>]),
);

export function toolHandlers(deps: McpToolDeps): ToolHandlers {
  return new Map<string, ToolHandler>([
    ['evaluate_trade', (args) => evaluateTrade(deps.entry, args as McpTradeRequest)],
    ['evaluate_trade_paid', (args) => evaluateTradePaid(deps.paid, args as PaidTradeInput)],
    ['check_token_safety', (args) => checkTokenSafety(deps, String(args.contract_address))],
    ['simulate_balance', (args) => simulateBalance(deps, args as never)],
    ['get_supported_assets', async () => supportedAssets(deps.registry)],
    ['verify_audit_trail', (args) => verifyAuditTrail(deps, String(args.wallet), Number(args.limit))],
  ]);
}

/** Validates the arguments with the same compiled schema the tool lists, then runs the handler. */
export async function callTool(handlers: ToolHandlers, name: string, args: unknown, log: Logger): Promise<CallToolResult> {
  const handler = handlers.get(name);
  const validate = validators.get(name);
  if (!handler || !validate) return failure(`unknown tool ${name}`, { code: 'not_found' });
  const checked = validate(args ?? {});
  if (!checked.ok) {
    return failure('invalid arguments', { code: 'validation_failed', detail: checked.detail.map((issue) => ({ ...issue, loc: issue.loc.slice(1) })) });
  }
  try {
    return await handler(checked.value);
  } catch (error) {
    // Adapters answer their own failures; anything that still escapes is this service's fault.
    logFailure(log, `mcp ${name}`, INTERNAL_ERROR, error);
    return failure(`${name} failed: an internal step failed`, { code: 'internal_error' });
  }
}
