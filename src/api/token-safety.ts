// POST /api/v1/token-safety: bytecode, owner and live-sell checks of a contract (public, limited per IP).
import { parseJsonBody } from '../http/json-body.js';
import { json } from '../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../http/types.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { TokenSafetyChecker } from '../safety/token-safety.js';
import { TokenSafetyRequest } from '../schemas/resources.js';
import { compileValidator } from '../schemas/validator.js';

export interface TokenSafetyRouteDeps {
  checker: TokenSafetyChecker | null;
  limiter: RateLimiter;
}

const validateRequest = compileValidator(TokenSafetyRequest, 'body');

export function tokenSafetyRoutes(deps: TokenSafetyRouteDeps): Route[] {
  return [
    {
      method: 'post',
      pattern: '/api/v1/token-safety',
      readsBody: true,
      handler: async (request) => (await deps.limiter.checkIp('tokenSafety', request.ip)) ?? checkToken(deps, request),
    },
  ];
}

async function checkToken(deps: TokenSafetyRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateRequest);
  if (!parsed.ok) return parsed.response;
  if (deps.checker === null) return unavailable('token safety needs a chain node (RPC_URL or the embedded devnet)');
  try {
    return json(200, await deps.checker.check(parsed.value.contract_address));
  } catch (error) {
    return unavailable(`token-safety check failed: ${(error as Error).message}`);
  }
}

/** Spec "Errors": on error the caller must not assume safe; HTTP 503 with `error`, no TokenSafety. */
function unavailable(error: string): PlainResponse {
  return json(503, { detail: 'No token-safety result was produced; do not assume the token is safe', error });
}
