// evaluate_trade and evaluate_trade_paid: the MCP adapter over the evaluation entry.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHANNEL_TIERS, PAYMENT, tierLabel } from '../catalogue/published-facts.js';
import { evaluateOnce, type ChannelTrade, type EntryDeps, type EvaluationAnswer } from '../evaluation/entry.js';
import { failure, result } from './tool-results.js';

/** The payment challenge's terms (spec "Payment challenge"); null when no settlement asset or payee is set. */
export interface PaymentTerms {
  network: string;
  asset: string;
  amount: string;
  pay_to: string;
  resource: string;
  max_timeout_seconds: number;
}

/** MCP is always Tier 1 and shares the per-wallet window with REST (spec "Limits"). */
export async function evaluateTrade(entry: EntryDeps, args: ChannelTrade): Promise<CallToolResult> {
  return mcpAnswer(await evaluateOnce(entry, args, { channel: 'mcp', tier: CHANNEL_TIERS.mcp }));
}

/** Without a proof: the payment challenge. Proofs are refused until they can be verified with a facilitator. */
export async function evaluateTradePaid(payment: PaymentTerms | null, args: Record<string, unknown>): Promise<CallToolResult> {
  if (!payment) {
    return failure('paid evaluation is not configured on this service (no settlement asset or PAY_TO_ADDRESS)', { code: 'payment_refused' });
  }
  if (args.payment_proof === undefined) {
    return result({
      status: 'payment_required',
      ...payment,
      description: `One trade evaluation at ${tierLabel(PAYMENT.tierGranted)}`,
      tier_granted: PAYMENT.tierGranted,
    });
  }
  return failure('payment proofs cannot be verified on this service yet; no verdict was produced, do not trade', { code: 'payment_refused' });
}

/** The spec's tool output drops what REST adds (timestamp, contract_risk, daily P&L); refusals carry their code. */
function mcpAnswer(answer: EvaluationAnswer): CallToolResult {
  switch (answer.kind) {
    case 'verdict': {
      const { timestamp: _t, contract_risk: _c, daily_pnl_usd: _d, error: _e, ...verdict } = answer.verdict;
      return result(verdict);
    }
    case 'error':
      return failure(answer.verdict.error ?? 'evaluation failed', { code: answer.code });
    case 'limited':
    case 'conflict':
      return failure(answer.message, { code: answer.code });
  }
}
