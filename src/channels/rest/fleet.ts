// Fleets (ARCHITECTURE.md "Fleets"): an operator registers agents by their signed delegation, sets their limits, lists them; either side ends it.
import type { Static } from '@sinclair/typebox';
import { PATHS } from '../../catalogue/published-facts.js';
import type { AccessTokens } from '../../auth/access-tokens.js';
import { authenticate } from '../../auth/bearer.js';
import type { Delegations, Registration, StoredDelegation } from '../../auth/delegations.js';
import { entitlementOf } from '../../auth/entitlement.js';
import { signedByAgent, type FleetDelegation } from '../../auth/fleet-delegation.js';
import type { AuditLog } from '../../audit/record/audit-log.js';
import type { HoldingsReader } from '../../facts/chain/holdings.js';
import type { Registry } from '../../facts/registry/registry.js';
import type { Logger } from '../../catalogue/failures.js';
import type { IpBucket, RateLimiter } from '../../http/rate-limiter.js';
import { parseJsonBody } from '../../http/json-body.js';
import { errorResponse, json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import { tierPolicy } from '../../risk/tiers.js';
import { AgentPath, FleetDelegationRequest, type FleetDelegationResponse, type FleetEndResponse } from '../../schemas/fleet.js';
import { compileValidator } from '../../schemas/validator.js';
import type { CacheStore } from '../../store/cache-store.js';
import { fleetListing } from './fleet-listing.js';
import { changeWalletPolicy } from './policy.js';
import { unavailable } from './unavailable.js';

export interface FleetDeps {
  tokens: AccessTokens;
  delegations: Delegations;
  holdings: HoldingsReader | null;
  store: CacheStore;
  audit: AuditLog;
  registry: Registry;
  limiter: RateLimiter;
  now: () => number;
  log: Logger;
}

const validateDelegation = compileValidator(FleetDelegationRequest, 'body');
const validateAgent = compileValidator(AgentPath, 'path');

type Handle = (deps: FleetDeps, request: PlainRequest, bearer: string) => Promise<PlainResponse>;

export function fleetRoutes(deps: FleetDeps): Route[] {
  const route = (method: Route['method'], pattern: string, handle: Handle, bucket?: IpBucket): Route => ({
    method,
    pattern,
    readsBody: method === 'post',
    handler: (request) => (bucket ? deps.limiter.guard(bucket, request.ip, () => signedIn(deps, request, handle)) : signedIn(deps, request, handle)),
  });
  return [
    route('get', PATHS.fleet, (d, _r, operator) => fleetListing(d, operator), 'auditList'),
    route('post', PATHS.fleetAgents, registerAgent),
    route('delete', `${PATHS.fleetAgents}/:agent`, removeAgent),
    route('post', `${PATHS.fleetAgents}/:agent/config`, configureAgent),
    route('delete', PATHS.fleetDelegation, revokeOwnDelegation),
  ];
}

/** Every fleet route takes a bearer; a store or log that fails answers 503 with its code, never a guess. */
async function signedIn(deps: FleetDeps, request: PlainRequest, handle: Handle): Promise<PlainResponse> {
  try {
    const bearer = await authenticate(deps.tokens, request);
    if (!bearer.ok) return bearer.response;
    return await handle(deps, request, bearer.claims.wallet.toLowerCase());
  } catch (error) {
    return unavailable(deps.log, request, 'Fleet unavailable', error);
  }
}

/** The operator (the bearer) registers an agent by the delegation the agent signed to it. */
async function registerAgent(deps: FleetDeps, request: PlainRequest, operator: string): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateDelegation);
  if (!parsed.ok) return parsed.response;
  const delegation: FleetDelegation = { ...parsed.value, agent: parsed.value.agent.toLowerCase(), operator: parsed.value.operator.toLowerCase() };
  if (delegation.operator !== operator) {
    return errorResponse('delegation_wrong_operator', `The delegation names operator ${delegation.operator}; the signed-in wallet is ${operator}`);
  }
  if (!(await signedByAgent(delegation, deps.registry.chainId))) {
    return errorResponse('delegation_signature_invalid',
      `The signature does not recover to agent ${delegation.agent} over these fields for chain ${deps.registry.chainId}; have the agent sign the FleetDelegation again`);
  }
  const registered = await deps.delegations.register(delegation);
  if (!registered.ok) return errorResponse(registered.code, refusalDetail(registered.code, delegation));
  const body: Static<typeof FleetDelegationResponse> = { agent: delegation.agent, delegation: registered.delegation };
  return json(200, body);
}

/** The operator ends an agent's delegation to it; the signature cannot be registered again. */
async function removeAgent(deps: FleetDeps, request: PlainRequest, operator: string): Promise<PlainResponse> {
  const agent = agentOf(request);
  if (!agent.ok) return agent.response;
  const ended = await deps.delegations.end(agent.wallet, operator);
  if (ended === null) return notDelegated(agent.wallet, operator);
  return json(200, endBody(agent.wallet, ended));
}

/** The agent (the bearer) ends whatever delegation it gave, without its operator. */
async function revokeOwnDelegation(deps: FleetDeps, _request: PlainRequest, agent: string): Promise<PlainResponse> {
  return json(200, endBody(agent, await deps.delegations.end(agent)));
}

/** The operator sets the agent's policy exactly as the agent could, at the agent's tier; the record names the operator. */
async function configureAgent(deps: FleetDeps, request: PlainRequest, operator: string): Promise<PlainResponse> {
  const agent = agentOf(request);
  if (!agent.ok) return agent.response;
  if ((await deps.delegations.activeFor(operator, agent.wallet)) === null) return notDelegated(agent.wallet, operator);
  const tier = (await entitlementOf(deps.holdings, agent.wallet, null)).effective;
  const context = { ok: true as const, wallet: agent.wallet, tier, maxTradeUsd: tierPolicy(tier).maxTradeUsd, changedBy: operator };
  return changeWalletPolicy(deps, context, request);
}

function agentOf(request: PlainRequest): { ok: true; wallet: string } | { ok: false; response: PlainResponse } {
  const path = validateAgent({ agent: request.params.agent });
  return path.ok ? { ok: true, wallet: path.value.agent.toLowerCase() } : { ok: false, response: validationFailed(path.detail) };
}

function notDelegated(agent: string, operator: string): PlainResponse {
  return errorResponse('agent_not_delegated', `Agent ${agent} has no delegation in force to operator ${operator}`);
}

/** What the operator does next, in the words of the refusal; the catalogue's message where it already says it. */
function refusalDetail(code: Exclude<Registration, { ok: true }>['code'], delegation: FleetDelegation): string | undefined {
  if (code === 'delegation_expired') {
    return `The delegation expired at ${new Date(delegation.expiry * 1000).toISOString()}; have the agent sign a new one`;
  }
  if (code === 'delegation_revoked') {
    return `The delegation of ${delegation.agent} with nonce ${delegation.nonce} was ended and cannot be registered again; have the agent sign a new one with a new nonce`;
  }
  return undefined;
}

function endBody(agent: string, ended: StoredDelegation | null): Static<typeof FleetEndResponse> {
  return { agent, ended: ended !== null, operator: ended?.operator ?? null };
}
