// The caller's PolicyConfig: GET reads it, POST replaces blocked_assets and, when given, the wallet's own limits (bearer token required).
import { PATHS } from '../../catalogue/published-facts.js';
import type { AccessTokens } from '../../auth/access-tokens.js';
import { authenticate } from '../../auth/bearer.js';
import { entitlementOf, previewTier } from '../../auth/entitlement.js';
import type { AuditLog } from '../../audit/record/audit-log.js';
import type { HoldingsReader } from '../../facts/chain/holdings.js';
import type { Registry } from '../../facts/registry/registry.js';
import { limitsChange, limitsFromWire, limitsIssues, limitsToWire } from '../../facts/wallet/wallet-limits.js';
import { parsePolicy, readPolicy, replacePolicy, type WalletPolicy } from '../../facts/wallet/wallet-policy.js';
import { DependencyError, failureOf, type Logger } from '../../catalogue/failures.js';
import { parseJsonBody } from '../../http/json-body.js';
import { json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import { tierPolicy } from '../../risk/tiers.js';
import type { Tier } from '../../risk/types.js';
import { UpdateConfigRequest } from '../../schemas/resources.js';
import { compileValidator } from '../../schemas/validator.js';
import type { CacheStore } from '../../store/cache-store.js';
import { limitsChangeEntry } from './limits-change-record.js';
import { unavailable } from './unavailable.js';

export interface PolicyDeps {
  tokens: AccessTokens;
  holdings: HoldingsReader | null;
  store: CacheStore;
  log: Logger;
  /** Where a change of limits is recorded (ARCHITECTURE.md "Fleet limits"). */
  audit: AuditLog;
  /** `allowed_assets` names registry symbols only. */
  registry: Registry;
}

const validateUpdate = compileValidator(UpdateConfigRequest, 'body');

export function policyRoutes(deps: PolicyDeps): Route[] {
  return [
    { method: 'get', pattern: PATHS.config, handler: (request) => guarded(deps, request, () => showPolicy(deps, request)) },
    { method: 'post', pattern: PATHS.config, readsBody: true, handler: (request) => guarded(deps, request, () => changePolicy(deps, request)) },
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

async function showPolicy(deps: PolicyDeps, request: PlainRequest): Promise<PlainResponse> {
  const context = await policyContext(deps, request);
  if (!context.ok) return context.response;
  const { policy } = await readPolicy(deps.store, context.wallet);
  return json(200, policyBody(context.wallet, context.maxTradeUsd, policy));
}

async function changePolicy(deps: PolicyDeps, request: PlainRequest): Promise<PlainResponse> {
  const context = await policyContext(deps, request);
  if (!context.ok) return context.response;
  return changeWalletPolicy(deps, context, request);
}

/**
 * Validates the body and applies it to `context.wallet`'s policy, recording a change of limits as
 * made by `context.changedBy`: the wallet itself here, its operator on the fleet route
 * (ARCHITECTURE.md "Fleets"), so both are held to the same checks and leave the same record.
 */
export async function changeWalletPolicy(deps: PolicyDeps, context: AllowedContext, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateUpdate);
  if (!parsed.ok) return parsed.response;
  const limits = parsed.value.limits === undefined ? undefined : limitsFromWire(parsed.value.limits);
  const issues = limitsIssues(limits ?? null, context.maxTradeUsd, (symbol) => deps.registry.bySymbol(symbol) !== null);
  if (issues.length > 0) return validationFailed(issues);
  const policy = await applyPolicy(deps, context, parsed.value.blocked_assets, limits);
  return json(200, policyBody(context.wallet, context.maxTradeUsd, policy));
}

/** A change that races another is read and applied again; so many races in a row is a 503 to retry. */
const MAX_ATTEMPTS = 4;

/**
 * Replaces the policy (limits left as they are when the body has none), then records a change of
 * limits in the wallet's audit chain. A change the log cannot record is undone: no limit moves
 * unseen by an auditor (ARCHITECTURE.md "Fleet limits").
 */
async function applyPolicy(deps: PolicyDeps, context: AllowedContext, blocked: string[], limits: WalletPolicy['limits'] | undefined): Promise<WalletPolicy> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { policy: before, text } = await readPolicy(deps.store, context.wallet);
    const next: WalletPolicy = { blockedAssets: blocked, limits: limits === undefined ? before.limits : limits };
    const changed = limitsChange(before.limits, next.limits) !== '';
    const unready = changed ? deps.audit.readiness(context.wallet) : null;
    if (unready !== null) throw new DependencyError(failureOf('audit_unavailable'), `a change of limits cannot be recorded: ${unready}`);
    const written = await replacePolicy(deps.store, context.wallet, text, next);
    if (written === null) continue;
    if (changed) await recordChange(deps, context, before, next, written);
    return parsePolicy(written);
  }
  throw new DependencyError(failureOf('store_unavailable'), `the policy of ${context.wallet} changed under ${MAX_ATTEMPTS} updates in a row; retry`);
}

async function recordChange(deps: PolicyDeps, context: AllowedContext, before: WalletPolicy, next: WalletPolicy, written: string): Promise<void> {
  try {
    await deps.audit.append(limitsChangeEntry(context.wallet, context.changedBy, context.tier, before.limits, next.limits));
  } catch (error) {
    // Put back what was there, unless another change came in meanwhile (that one is recorded by its own writer).
    await replacePolicy(deps.store, context.wallet, written, before).catch(() => null);
    throw new DependencyError(failureOf('audit_unavailable'), `a change of limits could not be recorded, so it was undone: ${(error as Error).message}`);
  }
}

/** Whose policy changes, at which tier, and who changes it. */
export type AllowedContext = { ok: true; wallet: string; tier: Tier; maxTradeUsd: number; changedBy: string };
type PolicyContext = AllowedContext | { ok: false; response: PlainResponse };

async function policyContext(deps: PolicyDeps, request: PlainRequest): Promise<PolicyContext> {
  const bearer = await authenticate(deps.tokens, request);
  if (!bearer.ok) return { ok: false, response: bearer.response };
  const preview = previewTier(request.headers['x-preview-tier']);
  if (!preview.ok) return { ok: false, response: validationFailed([preview.issue]) };
  const entitlement = await entitlementOf(deps.holdings, bearer.claims.wallet, preview.tier);
  const tier = entitlement.effective;
  return { ok: true, wallet: bearer.claims.wallet, tier, maxTradeUsd: tierPolicy(tier).maxTradeUsd, changedBy: bearer.claims.wallet };
}

export function policyBody(wallet: string, maxTradeUsd: number, policy: WalletPolicy) {
  return { wallet, max_trade_usd: maxTradeUsd, blocked_assets: policy.blockedAssets, limits: limitsToWire(policy.limits), editable: true };
}
