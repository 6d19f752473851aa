// Wallet sign-in operations: nonce, login with a signature, revoke.
import { PATHS } from '../../catalogue/published-facts.js';
import type { Hex } from 'viem';
import { TOKEN_LIFETIME_S, type AccessTokens } from '../../auth/access-tokens.js';
import { authenticate, unauthorized } from '../../auth/bearer.js';
import { entitlementOf } from '../../auth/entitlement.js';
import { ALREADY_USED, type SignIn } from '../../auth/sign-in.js';
import type { HoldingsReader } from '../../facts/chain/holdings.js';
import type { Logger } from '../../catalogue/failures.js';
import { parseJsonBody } from '../../http/json-body.js';
import { json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { NonceQuery, WalletLoginRequest } from '../../schemas/resources.js';
import { compileValidator } from '../../schemas/validator.js';
import { orUnavailable } from './unavailable.js';

export interface AuthDeps {
  tokens: AccessTokens;
  signIn: SignIn;
  holdings: HoldingsReader | null;
  limiter: RateLimiter;
  log: Logger;
}

const validateNonceQuery = compileValidator(NonceQuery, 'query');
const validateLogin = compileValidator(WalletLoginRequest, 'body');

export function authRoutes(deps: AuthDeps): Route[] {
  return [
    {
      method: 'get',
      pattern: PATHS.authNonce,
      handler: (request) => limited(deps, request, () => orUnavailable(deps.log, request, 'No sign-in message was issued', () => nonce(deps, request))),
    },
    {
      method: 'post',
      pattern: PATHS.authWallet,
      readsBody: true,
      handler: (request) => limited(deps, request, () => orUnavailable(deps.log, request, 'Sign-in did not complete', () => login(deps, request))),
    },
    {
      method: 'post',
      pattern: PATHS.authRevoke,
      readsBody: true,
      handler: (request) => orUnavailable(deps.log, request, 'The token was not revoked', () => revoke(deps, request)),
    },
  ];
}

function limited(deps: AuthDeps, request: PlainRequest, next: () => Promise<PlainResponse>): Promise<PlainResponse> {
  return deps.limiter.guard('auth', request.ip, next);
}

async function nonce(deps: AuthDeps, request: PlainRequest): Promise<PlainResponse> {
  const checked = validateNonceQuery(request.query);
  if (!checked.ok) return validationFailed(checked.detail);
  return json(200, { message: await deps.signIn.issue(checked.value.address) });
}

async function login(deps: AuthDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateLogin);
  if (!parsed.ok) return parsed.response;
  const { address, signature } = parsed.value;
  const result = await deps.signIn.verify(address, signature as Hex);
  if (!result.ok) return unauthorized('sign_in_refused', false, result.detail);
  // Holdings first, then the nonce: a chain that fails here leaves the message pending for a retry.
  const entitlement = await entitlementOf(deps.holdings, result.wallet, null);
  if (!(await deps.signIn.consume(result.wallet, result.message))) return unauthorized('sign_in_refused', false, ALREADY_USED);
  return json(200, {
    access_token: await deps.tokens.issue(result.wallet),
    expires_in_seconds: TOKEN_LIFETIME_S,
    preview_mode: entitlement.previewMode,
  });
}

/**
 * Spec "States": a missing or invalid token is not an error; the answer is 200 with revoked false.
 * A store that cannot be asked or written rejects (503): a valid token is never reported unrevoked.
 */
async function revoke(deps: AuthDeps, request: PlainRequest): Promise<PlainResponse> {
  const bearer = await authenticate(deps.tokens, request);
  if (!bearer.ok) return json(200, { revoked: false });
  await deps.tokens.revoke(bearer.claims);
  return json(200, { revoked: true });
}
