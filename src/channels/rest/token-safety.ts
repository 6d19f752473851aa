// POST /api/v1/token-safety: bytecode, owner and live-sell checks of a contract (public, limited per IP).
import { PATHS } from '../../catalogue/published-facts.js';
import { parseJsonBody } from '../../http/json-body.js';
import type { Failure, Logger } from '../../catalogue/failures.js';
import { json } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import type { TokenSafetyChecker } from '../../facts/safety/token-safety.js';
import { TokenSafetyRequest } from '../../schemas/resources.js';
import { compileValidator } from '../../schemas/validator.js';
import { reportFailure } from './unavailable.js';

export interface TokenSafetyRouteDeps {
  checker: TokenSafetyChecker | null;
  limiter: RateLimiter;
  log: Logger;
}

const NO_CHAIN: Failure = { code: 'chain_not_configured', words: 'token safety needs a chain node (RPC_URL or the embedded devnet)' };

const validateRequest = compileValidator(TokenSafetyRequest, 'body');

export function tokenSafetyRoutes(deps: TokenSafetyRouteDeps): Route[] {
  return [
    {
      method: 'post',
      pattern: PATHS.tokenSafety,
      readsBody: true,
      handler: (request) => deps.limiter.guard('tokenSafety', request.ip, () => checkToken(deps, request)),
    },
  ];
}

async function checkToken(deps: TokenSafetyRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateRequest);
  if (!parsed.ok) return parsed.response;
  if (deps.checker === null) return unavailable(NO_CHAIN);
  try {
    return json(200, await deps.checker.check(parsed.value.contract_address));
  } catch (error) {
    return unavailable(reportFailure(deps.log, request, error));
  }
}

/**
 * Spec "Errors": on error the caller must not assume safe; HTTP 503 with `error`, no TokenSafety.
 * `error` says what failed in words and `code` names it; the details are in the log.
 */
function unavailable(failure: Failure): PlainResponse {
  return json(503, { detail: 'No token-safety result was produced; do not assume the token is safe', error: failure.words, code: failure.code });
}
