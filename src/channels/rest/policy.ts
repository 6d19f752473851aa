// The caller's PolicyConfig: GET reads it, POST replaces blocked_assets (bearer token required).
import { PATHS } from '../../catalogue/published-facts.js';
import type { AccessTokens } from '../../auth/access-tokens.js';
import { authenticate } from '../../auth/bearer.js';
import { entitlementOf, previewTier } from '../../auth/entitlement.js';
import type { HoldingsReader } from '../../facts/chain/holdings.js';
import { parseJsonBody } from '../../http/json-body.js';
import { json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import { tierPolicy } from '../../risk/tiers.js';
import { UpdateConfigRequest } from '../../schemas/resources.js';
import { compileValidator } from '../../schemas/validator.js';
import type { CacheStore } from '../../store/cache-store.js';
import { readBlocked, writeBlocked } from '../../facts/wallet/wallet-policy.js';
import type { Logger } from '../../catalogue/failures.js';
import { unavailable } from './unavailable.js';

export interface PolicyDeps {
  tokens: AccessTokens;
  holdings: HoldingsReader | null;
  store: CacheStore;
  log: Logger;
}

const validateUpdate = compileValidator(UpdateConfigRequest, 'body');

export function policyRoutes(deps: PolicyDeps): Route[] {
  return [
    { method: 'get', pattern: PATHS.config, handler: (request) => guarded(deps, request, () => readPolicy(deps, request)) },
    { method: 'post', pattern: PATHS.config, readsBody: true, handler: (request) => guarded(deps, request, () => writePolicy(deps, request)) },
  ];
}

/**
 * Any failure answers 503 (a policy that cannot be read or saved is never assumed), saying
 * what failed and its code; the error's own text, which may hold a node URL, goes to the log.
 */
async function guarded(deps: PolicyDeps, request: PlainRequest, next: () => Promise<PlainResponse>): Promise<PlainResponse> {
  try {
    return await next();
  } catch (error) {
    return unavailable(deps.log, request, 'Policy unavailable', error);
  }
}

async function readPolicy(deps: PolicyDeps, request: PlainRequest): Promise<PlainResponse> {
  const context = await policyContext(deps, request);
  if (!context.ok) return context.response;
  return json(200, policyBody(context.wallet, context.maxTradeUsd, await readBlocked(deps.store, context.wallet)));
}

async function writePolicy(deps: PolicyDeps, request: PlainRequest): Promise<PlainResponse> {
  const context = await policyContext(deps, request);
  if (!context.ok) return context.response;
  const parsed = parseJsonBody(request, validateUpdate);
  if (!parsed.ok) return parsed.response;
  const blocked = await writeBlocked(deps.store, context.wallet, parsed.value.blocked_assets);
  return json(200, policyBody(context.wallet, context.maxTradeUsd, blocked));
}

type PolicyContext = { ok: true; wallet: string; maxTradeUsd: number } | { ok: false; response: PlainResponse };

async function policyContext(deps: PolicyDeps, request: PlainRequest): Promise<PolicyContext> {
  const bearer = await authenticate(deps.tokens, request);
  if (!bearer.ok) return { ok: false, response: bearer.response };
  const preview = previewTier(request.headers['x-preview-tier']);
  if (!preview.ok) return { ok: false, response: validationFailed([preview.issue]) };
  const entitlement = await entitlementOf(deps.holdings, bearer.claims.wallet, preview.tier);
  return { ok: true, wallet: bearer.claims.wallet, maxTradeUsd: tierPolicy(entitlement.effective).maxTradeUsd };
}

function policyBody(wallet: string, maxTradeUsd: number, blocked: string[]) {
  return { wallet, max_trade_usd: maxTradeUsd, blocked_assets: blocked, editable: true };
}
