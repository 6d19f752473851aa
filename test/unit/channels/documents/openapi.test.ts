// The OpenAPI document: valid 3.1 by a validator library, and covering every REST route with its 422 and its security.
import { permitSignerDocument, permitSignerRoutes } from '../../../../src/channels/rest/permit-signer.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import type { TSchema } from '@sinclair/typebox';
import { analyzeRoutes, type AnalyzeDeps, type SignedInCaller } from '../../../../src/channels/rest/analyze.js';
import { assetRoutes } from '../../../../src/channels/rest/assets.js';
import { operationsRoutes, type OperationsDeps } from '../../../../src/channels/rest/operations.js';
import { auditRoutes, type AuditRouteDeps } from '../../../../src/channels/rest/audit.js';
import { authRoutes, type AuthDeps } from '../../../../src/channels/rest/auth.js';
import { healthRoutes } from '../../../../src/channels/rest/health.js';
import { policyRoutes, type PolicyDeps } from '../../../../src/channels/rest/policy.js';
import { fleetRoutes, type FleetDeps } from '../../../../src/channels/rest/fleet.js';
import { rootRoutes } from '../../../../src/channels/rest/root.js';
import { simulateBalanceRoutes } from '../../../../src/channels/rest/simulate-balance.js';
import { statusRoutes, type StatusSources } from '../../../../src/channels/rest/status.js';
import { tokenSafetyRoutes, type TokenSafetyRouteDeps } from '../../../../src/channels/rest/token-safety.js';
import { x402Routes } from '../../../../src/channels/rest/x402-analyze.js';
import { previewTier } from '../../../../src/auth/entitlement.js';
import { ERRORS, errorBody, type ErrorCode } from '../../../../src/catalogue/errors.js';
import { PATHS, SERVICE, VERSIONS } from '../../../../src/catalogue/published-facts.js';
import { openApiDocument } from '../../../../src/channels/documents/openapi.js';
import { errorVerdict, type EvaluationRequest } from '../../../../src/evaluation/evaluate-trade.js';
import { tierPolicy } from '../../../../src/risk/tiers.js';
import type { Route } from '../../../../src/http/types.js';
import type { Registry } from '../../../../src/facts/registry/registry.js';
import { ErrorBody } from '../../../../src/schemas/errors.js';
import { X402Challenge, X402PaymentRequired } from '../../../../src/schemas/resources.js';
import { ErrorVerdict } from '../../../../src/schemas/trade.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import type { CacheStore } from '../../../../src/store/cache-store.js';
import { challengeBody, paymentRequiredV2 } from '../../../../src/evaluation/paid/terms.js';
import { auditProofRoutes, type AuditProofDeps } from '../../../../src/channels/rest/audit-proofs.js';
import { sampleTerms } from '../../../support/payment-terms.js';

const BASE = 'https://guard.example';
const document = openApiDocument(BASE) as any;
const PERMITS = { signer: '0x0000000000000000000000000000000000000001', chainId: SERVICE.chain.id, settings: null, ttlSeconds: 120 };

/**
 * The REST routes as app.ts builds them. Building a route list reads none of its dependencies
 * (handlers use them per request), so empty stand-ins do. MCP and the documents are not REST operations.
 */
function restRoutes(): Route[] {
  const none = {} as never;
  return [
    ...rootRoutes({
      chainId: SERVICE.chain.id, store: 'memory', auditKey: { alg: 'Ed25519', key_id: '0123456789abcdef', public_key: Buffer.alloc(32).toString('base64') },
      permitSigner: permitSignerDocument(PERMITS),
    }),
    ...permitSignerRoutes(PERMITS),
    ...healthRoutes(none as CacheStore, none),
    ...statusRoutes(none as StatusSources),
    ...assetRoutes({ assets: [] } as unknown as Registry),
    ...analyzeRoutes(none as AnalyzeDeps, none as SignedInCaller),
    ...x402Routes({ paid: null, off: 'not configured' }),
    ...authRoutes(none as AuthDeps),
    ...policyRoutes(none as PolicyDeps),
    ...fleetRoutes(none as FleetDeps),
    ...tokenSafetyRoutes(none as TokenSafetyRouteDeps),
    ...simulateBalanceRoutes(null, () => undefined),
    ...auditRoutes(none as AuditRouteDeps),
    ...auditProofRoutes({ tree: null, key: none, limiter: none, log: () => undefined } as AuditProofDeps),
    // The pages, their assets and Prometheus text are for people and scrapers; the JSON ones are operations.
    ...operationsRoutes(none as OperationsDeps).filter((route) => ([PATHS.latency, PATHS.decisions, PATHS.debugFeeds] as string[]).includes(route.pattern)),
  ];
}

/** `/api/v1/audit/wallet/:wallet` -> `/api/v1/audit/wallet/{wallet}` */
const openApiPath = (pattern: string) => pattern.replace(/:(\w+)/g, '{$1}');
const key = (route: Route) => `${route.method.toUpperCase()} ${openApiPath(route.pattern)}`;
const operationOf = (route: Route) => document.paths[openApiPath(route.pattern)]?.[route.method];

/** How the document narrows ErrorBody's `code` to what one answer carries. */
const codeIn = (codes: string[]) => ({ type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } });

/** Routes that take no input at all, so nothing can be invalid. */
const NO_INPUT = ['GET /', 'GET /healthz', 'GET /status.json', 'GET /api/v1/assets', 'POST /api/v1/auth/revoke', 'GET /metrics/latency.json', 'GET /metrics/decisions.json', 'GET /debug/feeds', 'GET /.well-known/audit-key.json', 'GET /.well-known/permit-signer.json',
  'GET /api/v1/fleet', 'DELETE /api/v1/fleet/delegation'];
const SECURED: Record<string, unknown[]> = {
  'POST /api/v1/analyze/trade': [{ bearer: [] }],
  'GET /api/v1/config': [{ bearer: [] }],
  'POST /api/v1/config': [{ bearer: [] }],
  'GET /api/v1/fleet': [{ bearer: [] }],
  'POST /api/v1/fleet/agents': [{ bearer: [] }],
  'DELETE /api/v1/fleet/agents/{agent}': [{ bearer: [] }],
  'POST /api/v1/fleet/agents/{agent}/config': [{ bearer: [] }],
  'DELETE /api/v1/fleet/delegation': [{ bearer: [] }],
  'POST /api/v1/auth/revoke': [{ bearer: [] }, {}],
  'POST /api/x402/analyze': [{ x402: [] }],
  'GET /debug/feeds': [{ admin: [] }],
};

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, by @readme/openapi-parser', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await validate(structuredClone(document));
    assert.deepEqual(result, { valid: true, warnings: [], specification: 'OpenAPI' });
  });

  it('names a license only by an SPDX identifier, as OpenAPI 3.1 validators require, and none for an UNLICENSED service', () => {
    if (SERVICE.license === 'UNLICENSED') assert.equal(document.info.license, undefined);
    else assert.deepEqual(document.info.license, { name: SERVICE.license, identifier: SERVICE.license });
  });

  it('answers 415 on every operation that takes a body, with the catalogued code', () => {
    for (const route of restRoutes().filter((r) => r.readsBody && operationOf(r).requestBody)) {
      assert.deepEqual(operationOf(route).responses['415'], { $ref: '#/components/responses/UnsupportedMediaType' }, key(route));
    }
    const schema = document.components.responses.UnsupportedMediaType.content['application/json'].schema;
    assert.deepEqual(schema.allOf[1], codeIn(['unsupported_media_type']));
  });

  it('is refused by the same validator when a $ref dangles, so the check above can fail', async () => {
    const broken = structuredClone(document);
    broken.paths[PATHS.analyzeFree].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Nothing' };
    assert.equal((await validate(broken)).valid, false);
  });

  it('names the service, the REST version and the public base as its one server', () => {
    assert.equal(document.info.title, SERVICE.name);
    assert.equal(document.info.version, VERSIONS.api);
    assert.deepEqual(document.servers, [{ url: BASE }]);
  });

  it('is plain JSON: no TypeBox metadata, no $id to move the base of a $ref', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(document)), document);
    assert.equal(JSON.stringify(document).includes('"$id"'), false);
    assert.deepEqual(document.components.schemas.TradeRequest.properties.wallet, { $ref: '#/components/schemas/Address' });
  });

  it('lists every REST route the service registers, and nothing else', () => {
    const routes = restRoutes();
    const listed = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
    assert.deepEqual(routes.map(key).sort(), listed.sort());
  });

  it('gives every route that takes input its 422, in the HTTPValidationError shape', () => {
    for (const route of restRoutes()) {
      const responses = operationOf(route).responses;
      assert.equal('422' in responses, !NO_INPUT.includes(key(route)), key(route));
      if (NO_INPUT.includes(key(route))) continue;
      assert.deepEqual(responses['422'], { $ref: '#/components/responses/ValidationFailed' });
    }
    const schema = document.components.responses.ValidationFailed.content['application/json'].schema;
    assert.deepEqual(schema.allOf[0], { $ref: '#/components/schemas/HTTPValidationError' });
    assert.deepEqual(schema.allOf[1].properties.code.enum, ['validation_failed', 'idempotency_conflict']);
  });

  it('requires the bearer JWT on analyze/trade, config and the fleet routes, x402 on the paid endpoint, the admin token on /debug/feeds, and nothing elsewhere', () => {
    // Every operation states its security, `[]` when public: linters (redocly's security-defined) count an absent one as an error.
    for (const route of restRoutes()) assert.deepEqual(operationOf(route).security, SECURED[key(route)] ?? [], key(route));
    assert.deepEqual(document.components.securitySchemes.bearer, {
      type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: document.components.securitySchemes.bearer.description,
    });
    const x402 = document.components.securitySchemes.x402;
    assert.deepEqual([x402.type, x402.in, x402.name], ['apiKey', 'header', 'X-PAYMENT']);
    assert.match(x402.description, /x402 payment.*X-PAYMENT.*PAYMENT-SIGNATURE/);
    const admin = document.components.securitySchemes.admin;
    assert.deepEqual([admin.type, admin.in, admin.name], ['apiKey', 'header', 'X-Admin-Token']);
  });

  it('gives every route that reads a body its request schema and its 413', () => {
    for (const route of restRoutes().filter((r) => r.readsBody)) {
      const operation = operationOf(route);
      assert.deepEqual(operation.responses['413'], { $ref: '#/components/responses/BodyTooLarge' }, key(route));
      if (key(route) === 'POST /api/v1/auth/revoke') continue;
      assert.equal(operation.requestBody.required, true, key(route));
      assert.match(operation.requestBody.content['application/json'].schema.$ref, /^#\/components\/schemas\//, key(route));
    }
  });

  it('describes 401, 402, 403 and 429 where they are answered, 429 with Retry-After', () => {
    const trade = document.paths[PATHS.analyzeTrade].post.responses;
    assert.deepEqual(trade['401'], { $ref: '#/components/responses/Unauthorized' });
    assert.deepEqual(trade['403'], { $ref: '#/components/responses/Forbidden' });
    assert.deepEqual(document.paths[PATHS.x402Analyze].post.responses['402'], { $ref: '#/components/responses/PaymentRequired' });
    const limited = document.components.responses.RateLimited;
    assert.deepEqual(Object.keys(limited.headers), ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Window']);
    assert.deepEqual(limited.content['application/json'], {
      schema: { allOf: [{ $ref: '#/components/schemas/ErrorBody' }, codeIn(['rate_limited'])] },
      example: errorBody('rate_limited'),
    });
    assert.deepEqual(document.components.schemas.ErrorBody.properties.code, { $ref: '#/components/schemas/ErrorCode' });
    assert.deepEqual(document.components.schemas.ErrorCode.enum, Object.keys(ERRORS));
  });

  it('names at 401 the codes of the bearer check and of sign-in, each a catalogued 401', () => {
    const codes = document.components.responses.Unauthorized.content['application/json'].schema.allOf[1].properties.code.enum;
    assert.deepEqual(codes, ['not_authenticated', 'authorization_malformed', 'token_invalid', 'token_expired', 'token_revoked', 'sign_in_refused']);
    for (const code of codes as ErrorCode[]) assert.equal(ERRORS[code].status, 401, code);
  });

  it('answers an evaluation\'s 503 with the error verdict or {detail, code}', () => {
    const unavailable = document.components.responses.EvaluationUnavailable.content['application/json'].schema;
    const codes503 = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => ERRORS[code].status === 503);
    assert.deepEqual(unavailable.oneOf, [
      { $ref: '#/components/schemas/ErrorVerdict' },
      { allOf: [{ $ref: '#/components/schemas/ErrorBody' }, codeIn(codes503)] },
    ]);
    for (const path of [PATHS.analyzeFree, PATHS.demoAnalyze, PATHS.analyzeTrade, PATHS.x402Analyze]) {
      assert.deepEqual(document.paths[path].post.responses['503'], { $ref: '#/components/responses/EvaluationUnavailable' }, path);
    }
  });

  it('takes x-preview-tier with exactly the values the route accepts', () => {
    const header = document.paths[PATHS.analyzeTrade].post.parameters.find((p: { name: string }) => p.name === 'x-preview-tier');
    assert.deepEqual(header.schema.enum, ['1', '2', '3']);
    for (const value of header.schema.enum) assert.equal(previewTier(value).ok, true, value);
    for (const value of ['0', '4', '01', ' 1', 'one']) assert.equal(previewTier(value).ok, false, value);
  });
});

describe('error schemas against the bodies the service builds', () => {
  const conforms = (schema: TSchema, body: unknown) => compileValidator(schema, 'body')(structuredClone(body)).ok;

  it('ErrorBody holds every catalogued error', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) assert.ok(conforms(ErrorBody, errorBody(code)), code);
    assert.ok(conforms(ErrorBody, errorBody('chain_unavailable', 'No token-safety result was produced', { error: 'the chain node did not answer' })));
    assert.equal(conforms(ErrorBody, { detail: 'x', code: 'no_such_code' }), false);
  });

  it('ErrorVerdict holds the 503 verdict of an evaluation, and requires its error and code', () => {
    const request = { policy: tierPolicy(1), trade: { request_id: null } } as unknown as EvaluationRequest;
    const verdict = errorVerdict(request, 'fact gathering failed: the chain node did not answer', Date.now(), 'chain_unavailable');
    assert.ok(conforms(ErrorVerdict, verdict));
    const { code: _code, ...withoutCode } = verdict;
    assert.equal(conforms(ErrorVerdict, withoutCode), false);
  });

  it('X402Challenge holds the 402 body, with and without a refusal reason', () => {
    const terms = sampleTerms(BASE);
    assert.ok(conforms(X402Challenge, challengeBody(terms, 'a payment is required')));
    assert.ok(conforms(X402Challenge, challengeBody(terms, 'wrong_amount: ...', 'wrong_amount')));
    assert.equal(conforms(X402Challenge, challengeBody(terms, 'x', 'no_such_reason')), false);
  });

  it('X402PaymentRequired holds the PAYMENT-REQUIRED header, a v2 PaymentRequired, and not the v1 body', () => {
    const terms = sampleTerms(BASE);
    assert.ok(conforms(X402PaymentRequired, paymentRequiredV2(terms, 'a payment is required')));
    assert.equal(conforms(X402PaymentRequired, challengeBody(terms, 'a payment is required')), false);
  });
});
