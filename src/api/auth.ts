// Wallet sign-in operations: nonce, login with a signature, revoke.
import type { Hex } from 'viem';
import { TOKEN_LIFETIME_S, type AccessTokens } from '../auth/access-tokens.js';
import { authenticate, unauthorized } from '../auth/bearer.js';
import { entitlementOf } from '../auth/entitlement.js';
import type { SignIn } from '../auth/sign-in.js';
import type { HoldingsReader } from '../chain/holdings.js';
import { parseJsonBody } from '../http/json-body.js';
import { json, validationFailed } from '../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../http/types.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { NonceQuery, WalletLoginRequest } from '../schemas/resources.js';
import { compileValidator } from '../schemas/validator.js';

export interface AuthDeps {
  tokens: AccessTokens;
  signIn: SignIn;
  holdings: HoldingsReader | null;
  limiter: RateLimiter;
}

const validateNonceQuery = compileValidator(NonceQuery, 'query');
const validateLogin = compileValidator(WalletLoginRequest, 'body');

export function authRoutes(deps: AuthDeps): Route[] {
  return [
    { method: 'get', pattern: '/api/v1/auth/nonce', handler: (request) => limited(deps, request, () => nonce(deps, request)) },
    { method: 'post', pattern: '/api/v1/auth/wallet', readsBody: true, handler: (request) => limited(deps, request, () => login(deps, request)) },
    { method: 'post', pattern: '/api/v1/auth/revoke', readsBody: true, handler: (request) => revoke(deps, request) },
  ];
}

async function limited(deps: AuthDeps, request: PlainRequest, next: () => Promise<PlainResponse>): Promise<PlainResponse> {
  return (await deps.limiter.checkIp('auth', request.ip)) ?? next();
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
  if (!result.ok) return unauthorized(result.detail, false);
  const entitlement = await entitlementOf(deps.holdings, result.wallet, null);
  return json(200, {
    access_token: await deps.tokens.issue(result.wallet),
    expires_in_seconds: TOKEN_LIFETIME_S,
    preview_mode: entitlement.previewMode,
  });
}

/** Spec "States": a missing or invalid token is not an error; the answer is 200 with revoked false. */
async function revoke(deps: AuthDeps, request: PlainRequest): Promise<PlainResponse> {
  const bearer = await authenticate(deps.tokens, request);
  if (!bearer.ok) return json(200, { revoked: false });
  await deps.tokens.revoke(bearer.claims);
  return json(200, { revoked: true });
}
