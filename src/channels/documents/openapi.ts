// The OpenAPI 3.1 description of the REST API (/openapi.json), built from the route schemas and the published facts.
import type { TObject } from '@sinclair/typebox';
import { PREVIEW_TIER_VALUES } from '../../auth/entitlement.js';
import { ERRORS, errorBody, type ErrorCode } from '../../catalogue/errors.js';
import { PATHS, PAYMENT, SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { BEARER_SCHEME } from './bearer-scheme.js';
import { OPERATIONS, type Failure, type Operation } from './openapi-operations.js';
import { componentSchemas, inlineSchema, schemaRef, type JsonObject, type SchemaName } from './openapi-schemas.js';

/** `baseUrl` is where clients reach the service (PUBLIC_BASE_URL, else the listening address): the one server. */
export function openApiDocument(baseUrl: string): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE.name,
      version: VERSIONS.api,
      description:
        `${SERVICE.description}\n\nAn answer with an \`error\` key means no result was produced: for a trade, do not trade. ` +
        `MCP clients use \`${baseUrl}${PATHS.mcp}\` (streamable HTTP, protocol ${VERSIONS.mcpProtocol}) instead, and A2A clients ` +
        `HTTP+JSON under \`${baseUrl}${PATHS.a2aRest}\` or JSON-RPC at \`${baseUrl}${PATHS.a2a}\` (from the agent card at \`${PATHS.agentCard[0]}\`).`,
      ...licenseOf(SERVICE.license),
    },
    servers: [{ url: baseUrl }],
    tags: [...new Set(OPERATIONS.map((operation) => operation.tag))].map((name) => ({ name })),
    paths: paths(),
    components: { schemas: componentSchemas(), responses: failureResponses(), securitySchemes: securitySchemes() },
    externalDocs: { description: 'Risk methodology: scores, tiers, reason and error codes', url: `${baseUrl}${PATHS.methodologyHtml}` },
  };
}

function paths(): JsonObject {
  const byPath: Record<string, JsonObject> = {};
  for (const operation of OPERATIONS) (byPath[operation.path] ??= {})[operation.method] = operationObject(operation);
  return byPath;
}

function operationObject(operation: Operation): JsonObject {
  const parameters = [
    ...parametersOf(operation.pathParams, 'path'),
    ...parametersOf(operation.query, 'query'),
    ...(operation.previewTier ? [PREVIEW_TIER] : []),
  ];
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body ? { requestBody: { required: true, content: jsonContent(schemaRef(operation.body)) } } : {}),
    responses: {
      '200': success(operation.ok),
      ...Object.fromEntries(operation.failures.map((failure) => [FAILURE_STATUS[failure], { $ref: `#/components/responses/${failure}` }])),
      // The edge refuses a body that is not JSON before any route sees it.
      ...(operation.body ? { '415': { $ref: '#/components/responses/UnsupportedMediaType' } } : {}),
    },
    // Stated on every operation, `[]` for a public one: linters (redocly's security-defined) read an absent one as an omission.
    security: operation.security ? SECURITY[operation.security] : [],
  };
}

/**
 * OpenAPI 3.1's license names its terms by SPDX `identifier` (validators refuse a bare `name`).
 * npm's `UNLICENSED` grants no license, and has no identifier: the document then names none.
 */
function licenseOf(license: string): JsonObject {
  return license === 'UNLICENSED' ? {} : { license: { name: license, identifier: license } };
}

/** Path and query parameters, one per property of the schema the route validates them with. */
function parametersOf(schema: TObject | undefined, where: 'path' | 'query'): JsonObject[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: inlineSchema(property),
  }));
}

const PREVIEW_TIER = {
  name: 'x-preview-tier',
  in: 'header',
  required: false,
  description: 'Evaluate at this tier instead of the one the holdings grant; a verdict previewed above the entitlement is never `allow`.',
  schema: { type: 'string', enum: PREVIEW_TIER_VALUES },
};

function success(ok: Operation['ok']): JsonObject {
  const content = ok.body === 'text' ? { 'text/plain': { schema: { type: 'string' } } } : jsonContent(bodySchema(ok.body));
  return { description: ok.description, ...(ok.headers ? { headers: SUCCESS_HEADERS[ok.headers] } : {}), content };
}

function bodySchema(body: SchemaName | `${SchemaName}[]`): JsonObject {
  return body.endsWith('[]') ? { type: 'array', items: schemaRef(body.slice(0, -2) as SchemaName) } : schemaRef(body as SchemaName);
}

function jsonContent(schema: JsonObject, example?: unknown): JsonObject {
  return { 'application/json': example === undefined ? { schema } : { schema, example } };
}

/** A header carrying base64 JSON of a named schema. */
function base64Json(description: string, name: SchemaName): JsonObject {
  return { description, schema: { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/json', contentSchema: schemaRef(name) } };
}

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

const SUCCESS_HEADERS: Record<NonNullable<Operation['ok']['headers']>, JsonObject> = {
  paymentReceipt: {
    'PAYMENT-RESPONSE': base64Json('The settlement receipt: the transfer is on chain before the verdict is sent', 'PaymentReceipt'),
    'X-PAYMENT-RESPONSE': base64Json('The same receipt under x402 v1\'s name', 'PaymentReceipt'),
  },
  auditExport: {
    'X-Audit-Head-Seq': integerHeader('The head the page was read against'),
    'X-Audit-Head-Hash': { description: 'The hash of that head', schema: { type: 'string' } },
    'X-Audit-Next-Seq': integerHeader('`from_seq` of the next page'),
  },
};

const FAILURE_STATUS: Record<Failure, string> = {
  ValidationFailed: '422',
  Unauthorized: '401',
  PaymentRequired: '402',
  Forbidden: '403',
  DelegationRefused: '403',
  FleetConflict: '409',
  AdminUnauthorized: '401',
  AdminForbidden: '403',
  CheckpointNotFound: '404',
  BodyTooLarge: '413',
  RateLimited: '429',
  Unavailable: '503',
  EvaluationUnavailable: '503',
  StoreUnreachable: '503',
};

/** The 401s of the bearer check and of sign-in (src/auth/bearer.ts, src/channels/rest/auth.ts); operator routes have others. */
const UNAUTHORIZED: readonly ErrorCode[] = [
  'not_authenticated', 'authorization_malformed', 'token_invalid', 'token_expired', 'token_revoked', 'sign_in_refused',
];

/** Every catalogued code at a status, for the statuses any route may answer with any of them (422, 503). */
function codesWithStatus(status: number): ErrorCode[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter((code) => ERRORS[code].status === status);
}

/** "`a`, `b` or `c`" */
function listed(codes: readonly string[]): string {
  const quoted = codes.map((code) => `\`${code}\``);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : quoted[0]!;
}

const codeIn = (codes: readonly ErrorCode[]) => ({ type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } });

/** `{detail, code}` with `code` narrowed to what this answer carries; the example is the catalogue's body for the first. */
function errorAnswer(description: string, codes: readonly ErrorCode[], headers?: JsonObject): JsonObject {
  return {
    description: `${description}; \`code\` is ${listed(codes)}`,
    ...(headers ? { headers } : {}),
    content: jsonContent({ allOf: [schemaRef('ErrorBody'), codeIn(codes)] }, errorBody(codes[0]!)),
  };
}

function failureResponses(): Record<Failure | 'UnsupportedMediaType', JsonObject> {
  const unavailable = codesWithStatus(503);
  return {
    ValidationFailed: {
      description: `Invalid input, in FastAPI's HTTPValidationError shape; \`code\` is ${listed(codesWithStatus(422))}`,
      content: jsonContent({ allOf: [schemaRef('HTTPValidationError'), codeIn(codesWithStatus(422))] }),
    },
    Unauthorized: errorAnswer('Missing, malformed, invalid, expired or revoked credentials, or a refused sign-in', UNAUTHORIZED, {
      'WWW-Authenticate': {
        description: '`Bearer`, with `error="invalid_token"` when a token was sent (RFC 6750 section 3)',
        schema: { type: 'string' },
      },
    }),
    PaymentRequired: {
      description:
        'No payment, or a refused one (`reason` says why; nothing was charged). The body is the challenge; ' +
        'its `accepts` are the x402 v1 payment requirements.',
      headers: { 'PAYMENT-REQUIRED': base64Json('The same terms as an x402 v2 PaymentRequired, which stock v2 clients read before the body', 'X402PaymentRequired') },
      content: jsonContent(schemaRef('X402Challenge')),
    },
    Forbidden: errorAnswer('A bearer may evaluate only its own wallet', ['wallet_mismatch']),
    DelegationRefused: errorAnswer('The fleet delegation is refused, or the agent has none in force to this operator', [
      'delegation_signature_invalid', 'delegation_expired', 'delegation_wrong_operator', 'delegation_revoked', 'agent_not_delegated',
    ]),
    FleetConflict: errorAnswer('The agent is held by another operator, or the fleet is full', ['agent_delegated_elsewhere', 'fleet_full']),
    AdminUnauthorized: errorAnswer('No X-Admin-Token header', ['admin_token_missing']),
    AdminForbidden: errorAnswer('A wrong X-Admin-Token, or operator routes disabled (no ADMIN_TOKEN)', ['admin_token_invalid', 'admin_disabled']),
    CheckpointNotFound: errorAnswer('No checkpoint has that tree_size', ['checkpoint_not_found']),
    UnsupportedMediaType: errorAnswer('The body\'s Content-Type is not JSON; nothing was read', ['unsupported_media_type']),
    BodyTooLarge: errorAnswer('The body is over MAX_BODY_BYTES; the connection is closed after the answer', ['body_too_large']),
    RateLimited: errorAnswer('A per-IP or per-wallet window is full; wait `Retry-After` seconds', ['rate_limited'], {
      'Retry-After': integerHeader('Seconds until the window has room (RFC 9110 section 10.2.3)'),
      'X-RateLimit-Limit': integerHeader('Requests allowed per window'),
      'X-RateLimit-Window': integerHeader('Length of the window in seconds'),
    }),
    Unavailable: errorAnswer('A dependency did not answer and no result was produced (never assume safe)', unavailable),
    EvaluationUnavailable: {
      description:
        'No verdict was produced: do not trade. Either the error verdict (`decision` `deny`, `audit_seq` null, `error` naming the ' +
        `failed step) or, when the evaluation never started, \`{detail, code}\`; \`code\` is ${listed(unavailable)}`,
      content: jsonContent({ oneOf: [schemaRef('ErrorVerdict'), { allOf: [schemaRef('ErrorBody'), codeIn(unavailable)] }] }),
    },
    StoreUnreachable: { description: 'The cache store did not answer, or the data under DATA_DIR could not open yet (`reason` says why, e.g. a full disk)', content: jsonContent(schemaRef('Health')) },
  };
}

const SECURITY: Record<NonNullable<Operation['security']>, JsonObject[]> = {
  bearer: [{ bearer: [] }],
  // Empty requirement: the operation also answers without credentials.
  optionalBearer: [{ bearer: [] }, {}],
  x402: [{ x402: [] }],
  admin: [{ admin: [] }],
};

function securitySchemes(): JsonObject {
  return {
    bearer: { ...BEARER_SCHEME },
    x402: {
      type: 'apiKey',
      in: 'header',
      name: PAYMENT.header,
      description:
        `An x402 payment, not an API key: OpenAPI has no x402 scheme type. The base64 JSON payment payload, x402 v1 in ` +
        `\`${PAYMENT.header}\` or v2 in \`PAYMENT-SIGNATURE\`; a call without one answers 402 with the terms.`,
    },
    admin: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Admin-Token',
      description: 'The operator token the service was started with (ADMIN_TOKEN); without ADMIN_TOKEN the operator routes answer 403.',
    },
  };
}
