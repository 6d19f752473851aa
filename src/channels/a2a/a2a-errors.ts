// What the A2A channel refuses with: the SDK's error types, carrying the service's catalogue code in their metadata.
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { ERRORS, type ErrorCode } from '../../catalogue/errors.js';
import type { EvaluationAnswer } from '../../evaluation/entry.js';
import type { ValidationIssue } from '../../schemas/validator.js';

/**
 * Input the skill cannot take: JSON-RPC -32602 (INVALID_PARAMS). `detail` is the FastAPI list
 * the REST 422 would carry, with `loc` relative to the data part (as MCP's tool errors drop 'body').
 */
export function invalidInput(message: string, detail: ValidationIssue[], code: ErrorCode = 'validation_failed'): A2AError {
  const issues = detail.map((issue) => ({ ...issue, loc: issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc }));
  return new RequestMalformedError({ message, metadata: { code, detail: JSON.stringify(issues) } });
}

/**
 * No result was produced: JSON-RPC -32603 with the catalogue code. A client sees an error, never a
 * task, so nothing in the answer can be read as an `allow` (spec "Decision semantics": an `error` is a hard stop).
 */
export function refused(code: ErrorCode, message: string, extra: Record<string, string> = {}): A2AError {
  return new A2AError({ message: message || ERRORS[code].message, metadata: { code, ...extra } });
}

/** An evaluation answer that is not a verdict, as the error the A2A client sees. */
export function answerError(answer: Exclude<EvaluationAnswer, { kind: 'verdict' }>): A2AError {
  switch (answer.kind) {
    case 'invalid':
      return invalidInput('invalid TradeRequest: see detail', answer.detail);
    case 'conflict':
      return invalidInput(answer.message, [
        {
          loc: ['request_id'],
          msg: `Value error, ${answer.message}`,
          type: 'value_error',
          input: answer.requestId,
          ctx: { error: 'idempotency key reused with a different body' },
        },
      ], answer.code);
    case 'limited':
      return refused(answer.code, answer.message, { retry_after_seconds: String(Math.max(1, Math.ceil(answer.retryAfterMs / 1000))) });
    case 'error':
      return refused(answer.code, `no verdict was produced, do not trade: ${answer.verdict.error ?? ERRORS[answer.code].message}`);
    case 'unsettled':
      return refused(answer.code, answer.message);
  }
}
