// The function behind the MCP `verify_audit_trail` tool: one wallet's chain, answered as the spec's tool output.
import { AuditQuery, WalletPath } from '../schemas/resources.js';
import { compileValidator, type ValidationIssue } from '../schemas/validator.js';
import type { AuditVerifier } from './audit-verifier.js';

export interface AuditTrailInput {
  wallet: string;
  /** 1 to 1000, default 100: the newest records checked. */
  limit?: number;
}

export interface AuditTrailResult {
  healthy: boolean;
  records_checked: number;
  /** Seq of the first record whose hash or link fails; null when healthy. */
  first_broken_seq: number | null;
}

const validateWallet = compileValidator(WalletPath, 'path');
const validateLimit = compileValidator(AuditQuery, 'query');

function describe(issues: ValidationIssue[]): string {
  return issues.map((issue) => `${issue.loc.slice(1).join('.')}: ${issue.msg}`).join('; ');
}

/**
 * Never throws: invalid input and an unreadable store come back as `{ error }`,
 * which the caller must read as "the chain is not known to be intact" (spec, Errors).
 */
export async function verifyAuditTrail(verifier: AuditVerifier, input: AuditTrailInput): Promise<AuditTrailResult | { error: string }> {
  const wallet = validateWallet({ wallet: input.wallet });
  const limit = validateLimit(input.limit === undefined ? {} : { limit: input.limit });
  if (!wallet.ok || !limit.ok) {
    return { error: `invalid input: ${describe([...(wallet.ok ? [] : wallet.detail), ...(limit.ok ? [] : limit.detail)])}` };
  }
  try {
    const report = await verifier.verifyWallet(wallet.value.wallet, limit.value.limit ?? 100);
    return { healthy: report.healthy, records_checked: report.total, first_broken_seq: report.firstBrokenSeq };
  } catch (error) {
    return { error: `audit verification failed: ${(error as Error).message}` };
  }
}
