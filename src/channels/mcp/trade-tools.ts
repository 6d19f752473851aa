// evaluate_trade and evaluate_trade_paid: the MCP adapter over the evaluation entry.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHANNEL_TIERS } from '../../catalogue/published-facts.js';
import { evaluateOnce, invalidTrade, type EntryDeps, type EvaluationAnswer } from '../../evaluation/entry.js';
import { evaluatePaid, type PaidDeps } from '../../evaluation/paid/paid-evaluation.js';
import { mcpChallenge } from '../../evaluation/paid/terms.js';
import { toolVerdictJson } from '../../evaluation/verdict-text.js';
import { VerdictOutput, type PaidTradeInput } from '../../schemas/mcp-tools.js';
import type { McpTradeRequest, Verdict } from '../../schemas/trade.js';
import { failure, result } from './tool-results.js';

const TOOL_VERDICT_FIELDS: ReadonlySet<string> = new Set(Object.keys(VerdictOutput.properties));

/** Keeps the verdict's fields the schema lists, in the verdict's order, so the output is what the tool declares. */
function toolVerdict(verdict: Verdict): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field in verdict) if (TOOL_VERDICT_FIELDS.has(field)) kept[field] = verdict[field as keyof Verdict];
  return kept;
}

/** MCP is always Tier 1 and shares the per-wallet window with REST (spec "Limits"). */
export async function evaluateTrade(entry: EntryDeps, args: McpTradeRequest): Promise<CallToolResult> {
  return mcpAnswer(await evaluateOnce(entry, args, { channel: 'mcp', tier: CHANNEL_TIERS.mcp }));
}

/**
 * Without a proof: the payment challenge. With one: the paid evaluation REST runs, the proof
 * being the base64 payment payload its headers carry; refusals carry the reason and the challenge.
 */
export async function evaluateTradePaid(paid: PaidDeps | null, args: PaidTradeInput): Promise<CallToolResult> {
  if (!paid) {
    return failure('paid evaluation is not configured on this service (no settlement asset, PAY_TO_ADDRESS or facilitator)', { code: 'facilitator_unavailable' });
  }
  const { payment_proof: proof, ...trade } = args;
  // The trade first, as REST checks its body before the payment: an invalid one is never charged.
  const invalid = invalidTrade(paid.entry, trade);
  if (invalid) return mcpAnswer(invalid);
  if (proof === undefined) return result(mcpChallenge(paid.terms));
  const answer = await evaluatePaid(paid, trade, proof);
  switch (answer.kind) {
    case 'refused':
      return failure(answer.refusal.message, { code: 'payment_refused', reason: answer.refusal.reason, challenge: mcpChallenge(paid.terms) });
    case 'failed':
      return failure(answer.message, { code: answer.code });
    case 'answered': {
      const rendered = mcpAnswer(answer.answer);
      if (!answer.receipt) return rendered;
      const structured: Record<string, unknown> = { ...rendered.structuredContent, payment_response: answer.receipt };
      return rendered.isError ? failure(String(structured.error), structured) : result(structured);
    }
  }
}

/** The verdict as the tool's output schema declares it (VerdictOutput); refusals carry their code. */
function mcpAnswer(answer: EvaluationAnswer): CallToolResult {
  switch (answer.kind) {
    case 'verdict': {
      const output = toolVerdict(answer.verdict);
      return result(output, toolVerdictJson(output));
    }
    case 'error':
      return failure(answer.verdict.error ?? 'evaluation failed', { code: answer.code });
    case 'limited':
    case 'conflict':
    case 'unsettled':
      return failure(answer.message, { code: answer.code });
    case 'invalid':
      // The shape of a tool's argument errors (tool-handlers.ts): loc without REST's 'body'.
      return failure('invalid arguments', { code: answer.code, detail: answer.detail.map((issue) => ({ ...issue, loc: issue.loc.slice(1) })) });
  }
}
