// Fails sign-in and bearer routes closed while the shared store cannot be trusted (lost state, or unverified).
import { decodeJwt } from 'jose';
import { unauthorized } from '../../auth/bearer.js';
import { PATHS } from '../../catalogue/published-facts.js';
import { errorResponse } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { StoreProblem, StoreState } from '../../store/store-state.js';

/** Routes whose answers rest on nonces, revocations or policies kept in the shared store. */
const GUARDED: ReadonlySet<string> = new Set([PATHS.authNonce, PATHS.authWallet, PATHS.authRevoke, PATHS.config, PATHS.analyzeTrade]);
/** Revoking an old token stays possible: it only adds a deny entry. */
const REVOKE = PATHS.authRevoke;

/** Wraps the guarded routes among `routes`; the others pass through untouched. */
export function guardStoreRoutes(state: StoreState, routes: Route[]): Route[] {
  return routes.map((route) => (GUARDED.has(route.pattern) ? guarded(state, route) : route));
}

function guarded(state: StoreState, route: Route): Route {
  return {
    ...route,
    handler: (request) => {
      const problem = state.problem();
      if (problem) return storeProblemResponse(problem);
      const notBefore = state.tokensNotBeforeMs();
      if (notBefore !== null && route.pattern !== REVOKE && tokenIssuedBefore(request, notBefore)) return revokedByEpoch();
      return route.handler(request);
    },
  };
}

/** 503 with the problem's code: the answer a client gets for any sign-in or bearer route meanwhile. */
export function storeProblemResponse(problem: StoreProblem): PlainResponse {
  const detail =
    problem.code === 'store_lost_state'
      ? `The shared store lost state, so sign-ins, token checks and evaluations cannot be trusted until an operator acts: ${problem.detail}`
      : `The shared store is not verified yet (${problem.detail}); retry shortly`;
  return errorResponse(problem.code, detail);
}

/**
 * A token issued before the operator accepted a new epoch may have been revoked in the
 * lost store; its revocation is gone, so every such token is refused. Only the issue
 * time is read here (unverified): this check can refuse a token, never accept one.
 */
function tokenIssuedBefore(request: PlainRequest, notBeforeMs: number): boolean {
  const match = /^Bearer\s+(\S+)$/.exec((request.headers.authorization ?? '').trim());
  if (!match) return false;
  try {
    const { iat } = decodeJwt(match[1]);
    return typeof iat === 'number' && iat < Math.floor(notBeforeMs / 1000);
  } catch {
    return false;
  }
}

function revokedByEpoch(): PlainResponse {
  return unauthorized('token_revoked', true);
}
