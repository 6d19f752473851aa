// 503 answers for a dependency that failed: the client reads what failed and a code, the log gets the details.
import { describeFailure, isDependencyFailure, logFailure, type Failure, type Logger } from '../../catalogue/failures.js';
import { errorResponse } from '../../http/responses.js';
import type { PlainRequest, PlainResponse } from '../../http/types.js';

/** Classifies the error, logs its details (credentials removed) and returns what the client may see. */
export function reportFailure(log: Logger, request: PlainRequest, error: unknown, fallback?: Failure): Failure {
  const failure = describeFailure(error, fallback);
  logFailure(log, `${request.method.toUpperCase()} ${request.path}`, failure, error);
  return failure;
}

/** `{"detail": "<what>: <what failed>", "code": "<code>"}` with status 503. */
export function unavailable(log: Logger, request: PlainRequest, what: string, error: unknown, fallback?: Failure): PlainResponse {
  const failure = reportFailure(log, request, error, fallback);
  return errorResponse(failure.code, `${what}: ${failure.words}`);
}

/**
 * Runs a handler; a dependency's failure (chain node, cache store) becomes a 503 that says
 * so, while any other error still reaches the edge, which logs it and answers 500.
 */
export async function orUnavailable(
  log: Logger,
  request: PlainRequest,
  what: string,
  next: () => Promise<PlainResponse>,
): Promise<PlainResponse> {
  try {
    return await next();
  } catch (error) {
    if (!isDependencyFailure(error)) throw error;
    return unavailable(log, request, what, error);
  }
}
