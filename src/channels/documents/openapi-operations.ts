// Every REST operation the service answers, as data: its path, inputs, success body, failures and security.
import { Type, type TObject } from '@sinclair/typebox';
import { CHANNEL_TIERS, PATHS, PAYMENT, tierLabel } from '../../catalogue/published-facts.js';
import { AgentPath } from '../../schemas/fleet.js';
import { AuditChainQuery, AuditExportQuery, AuditFactsQuery, AuditQuery, NonceQuery, WalletPath } from '../../schemas/resources.js';
import { CheckpointQuery, ConsistencyQuery, ProofPath } from '../../schemas/audit-proofs.js';
import type { SchemaName } from './openapi-schemas.js';
import { REASON_CODES } from '../../risk/reason-codes.js';

/** The reason codes of a wallet's own limits (ARCHITECTURE.md "Fleet limits"), named from the catalogue. */
const POLICY_CODES = Object.keys(REASON_CODES).filter((code) => code.startsWith('POLICY_')).map((code) => `\`${code}\``).join(', ');

/** The failures an operation can answer besides its 200, each a shared response of the document. */
export type Failure =
  | 'ValidationFailed' // 422
  | 'Unauthorized' // 401
  | 'PaymentRequired' // 402
  | 'Forbidden' // 403 wallet_mismatch
  | 'DelegationRefused' // 403 delegation_*, agent_not_delegated
  | 'FleetConflict' // 409 agent_delegated_elsewhere, fleet_full
  | 'AdminUnauthorized' // 401 admin_token_missing
  | 'AdminForbidden' // 403 admin_token_invalid, admin_disabled
  | 'CheckpointNotFound' // 404 checkpoint_not_found
  | 'BodyTooLarge' // 413
  | 'RateLimited' // 429
  | 'Unavailable' // 503 {detail, code}
  | 'EvaluationUnavailable' // 503 error verdict or {detail, code}
  | 'StoreUnreachable'; // 503 of /healthz, in its own shape

export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** The OpenAPI path: PATHS, with `{wallet}` where the route has `:wallet`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  body?: SchemaName;
  query?: TObject;
  pathParams?: TObject;
  /** Takes `x-preview-tier` (docs/signing-in.md). */
  previewTier?: boolean;
  /** `optionalBearer`: a token is read when sent, and its absence is an answer, not a 401. */
  security?: 'bearer' | 'optionalBearer' | 'x402' | 'admin';
  ok: {
    description: string;
    /** A schema's name, a list of one, or plain text. */
    body: SchemaName | `${SchemaName}[]` | 'text';
    headers?: 'paymentReceipt' | 'auditExport';
  };
  failures: Failure[];
}

const EVALUATION = 'Evaluation';
const SIGN_IN = 'Sign-in';
const FLEET = 'Fleet';
const VERDICT_OK = { description: 'The verdict; `audit_hash` and `audit_seq` name its audit record', body: 'Verdict' } as const;
/** What every evaluation may answer besides its verdict. */
const EVALUATION_FAILURES: Failure[] = ['ValidationFailed', 'BodyTooLarge', 'RateLimited', 'EvaluationUnavailable'];
/** A route's query with `chain`, which a partitioned log reads (docs/audit-records.md "Partitioned audit chains"). */
const withChain = (query: TObject): TObject => Type.Composite([query, AuditChainQuery]);

/** A GET with a query, limited per IP, that reads a store. */
const LIMITED_QUERY: Failure[] = ['ValidationFailed', 'RateLimited', 'Unavailable'];

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post', path: PATHS.analyzeFree, operationId: 'analyzeFree', tag: EVALUATION,
    summary: `Evaluate a trade at ${tierLabel(CHANNEL_TIERS.free)}`,
    description: 'Public, limited per IP and per wallet. Resolve `contract_address` from the asset registry first.',
    body: 'TradeRequest', ok: VERDICT_OK, failures: EVALUATION_FAILURES,
  },
  {
    method: 'post', path: PATHS.demoAnalyze, operationId: 'analyzeDemo', tag: EVALUATION,
    summary: `The same evaluation on the demo channel, at ${tierLabel(CHANNEL_TIERS.demo)}`,
    body: 'TradeRequest', ok: VERDICT_OK, failures: EVALUATION_FAILURES,
  },
  {
    method: 'post', path: PATHS.analyzeTrade, operationId: 'analyzeTrade', tag: EVALUATION,
    summary: 'Evaluate a trade at the tier of the signed-in wallet\'s holdings',
    description:
      'The body\'s `wallet` must be the signed-in wallet. `x-preview-tier` evaluates at another tier; ' +
      'above the entitlement the verdict is never `allow`.',
    body: 'TradeRequest', previewTier: true, security: 'bearer', ok: VERDICT_OK,
    failures: [...EVALUATION_FAILURES, 'Unauthorized', 'Forbidden'],
  },
  {
    method: 'post', path: PATHS.x402Analyze, operationId: 'analyzePaid', tag: EVALUATION,
    summary: `Evaluate a trade at ${tierLabel(PAYMENT.tierGranted)}, paid per call with x402`,
    description:
      `Without a payment: 402 with the terms (${PAYMENT.amountBaseUnits} base units of the ${PAYMENT.assetDecimals}-decimal ` +
      `settlement stablecoin, valid ${PAYMENT.maxTimeoutSeconds} s). Send the base64 payment payload in \`${PAYMENT.header}\` ` +
      '(x402 v1) or `PAYMENT-SIGNATURE` (v2). One payment buys one verdict; the body is checked before the payment is touched.',
    body: 'TradeRequest', security: 'x402',
    ok: { ...VERDICT_OK, headers: 'paymentReceipt' },
    failures: [...EVALUATION_FAILURES, 'PaymentRequired'],
  },
  {
    method: 'get', path: PATHS.authNonce, operationId: 'signInNonce', tag: SIGN_IN,
    summary: 'An EIP-4361 (SIWE) message to sign', description: 'Single use, valid 5 minutes; up to 5 pending per address.',
    query: NonceQuery, ok: { description: 'The message', body: 'NonceResponse' }, failures: LIMITED_QUERY,
  },
  {
    method: 'post', path: PATHS.authWallet, operationId: 'signIn', tag: SIGN_IN,
    summary: 'Exchange a signed message for an access token (JWT)',
    body: 'WalletLoginRequest', ok: { description: 'The access token', body: 'WalletLoginResponse' },
    failures: ['ValidationFailed', 'Unauthorized', 'BodyTooLarge', 'RateLimited', 'Unavailable'],
  },
  {
    method: 'post', path: PATHS.authRevoke, operationId: 'revokeToken', tag: SIGN_IN,
    summary: 'End the bearer\'s token at once', description: 'Without a valid token the answer is 200 with `revoked: false`.',
    security: 'optionalBearer', ok: { description: 'Whether a token was revoked', body: 'RevokeResponse' },
    failures: ['BodyTooLarge', 'Unavailable'],
  },
  {
    method: 'get', path: PATHS.config, operationId: 'readPolicy', tag: 'Policy',
    summary: 'The signed-in wallet\'s policy', previewTier: true, security: 'bearer',
    ok: { description: 'The policy', body: 'PolicyConfig' }, failures: ['ValidationFailed', 'Unauthorized', 'Unavailable'],
  },
  {
    method: 'post', path: PATHS.config, operationId: 'replaceBlockedAssets', tag: 'Policy',
    summary: 'Replace the signed-in wallet\'s blocked assets and, when given, its own limits',
    description:
      'Symbols upper-cased, addresses lower-cased, duplicates dropped. ' +
      'A blocked asset denies every later evaluation of the wallet, on every channel. ' +
      '`limits` (absent: unchanged; null: removed) only tighten the tier: a max_trade_usd above the tier\'s, or an asset outside ' +
      `the registry, is a 422. A trade a limit stops is \`deny\` with its own reason code: ${POLICY_CODES}. ` +
      'Each change of limits is a record (channel `config`) in the wallet\'s audit chain.',
    body: 'UpdateConfigRequest', previewTier: true, security: 'bearer',
    ok: { description: 'The updated policy', body: 'PolicyConfig' },
    failures: ['ValidationFailed', 'Unauthorized', 'BodyTooLarge', 'Unavailable'],
  },
  {
    method: 'post', path: PATHS.fleetAgents, operationId: 'registerFleetAgent', tag: FLEET,
    summary: 'Register an agent in the signed-in operator\'s fleet by the EIP-712 FleetDelegation the agent signed',
    description:
      'The body is the signed fields (agent, operator, expiry, nonce) and the agent\'s signature; `operator` must be the signed-in wallet. ' +
      'A forged, expired or ended delegation, or one for another operator, is a 403 with its own code; an agent held by another operator is a 409.',
    body: 'FleetDelegationRequest', security: 'bearer', ok: { description: 'The delegation now in force', body: 'FleetDelegationResponse' },
    failures: ['ValidationFailed', 'Unauthorized', 'DelegationRefused', 'FleetConflict', 'BodyTooLarge', 'Unavailable'],
  },
  {
    method: 'delete', path: `${PATHS.fleetAgents}/{agent}`, operationId: 'removeFleetAgent', tag: FLEET,
    summary: 'End an agent\'s delegation to the signed-in operator; the same signature cannot be registered again',
    pathParams: AgentPath, security: 'bearer', ok: { description: 'The delegation ended', body: 'FleetEndResponse' },
    failures: ['ValidationFailed', 'Unauthorized', 'DelegationRefused', 'Unavailable'],
  },
  {
    method: 'post', path: `${PATHS.fleetAgents}/{agent}/config`, operationId: 'configureFleetAgent', tag: FLEET,
    summary: 'Replace an agent\'s blocked assets and limits as the agent could, at the agent\'s tier',
    description: 'The same body, checks and answer as `POST /api/v1/config`; the audit record of a change of limits names the operator in `changed_by`.',
    pathParams: AgentPath, body: 'UpdateConfigRequest', security: 'bearer', ok: { description: 'The agent\'s updated policy', body: 'PolicyConfig' },
    failures: ['ValidationFailed', 'Unauthorized', 'DelegationRefused', 'BodyTooLarge', 'Unavailable'],
  },
  {
    method: 'get', path: PATHS.fleet, operationId: 'listFleet', tag: FLEET,
    summary: 'The signed-in operator\'s agents: limits, today\'s use of the daily budget, verdicts by decision over the last 24 hours',
    description: 'Counts come from each agent\'s newest 1,000 audit records; `capped` says when all of them fell inside the 24 hours.',
    security: 'bearer', ok: { description: 'The fleet', body: 'FleetListing' }, failures: ['Unauthorized', 'RateLimited', 'Unavailable'],
  },
  {
    method: 'delete', path: PATHS.fleetDelegation, operationId: 'revokeOwnDelegation', tag: FLEET,
    summary: 'End the delegation the signed-in agent gave, whoever its operator',
    security: 'bearer', ok: { description: 'Whether a delegation was in force and ended', body: 'FleetEndResponse' },
    failures: ['Unauthorized', 'Unavailable'],
  },
  {
    method: 'get', path: PATHS.assets, operationId: 'listAssets', tag: 'Registry',
    summary: 'The official asset registry', ok: { description: 'Every asset with its canonical contract address', body: 'AssetInfo[]' }, failures: [],
  },
  {
    method: 'post', path: PATHS.tokenSafety, operationId: 'checkTokenSafety', tag: 'Safety',
    summary: 'Token honeypot and contract safety check (heuristic, not an audit)',
    description: 'A `danger` result denies every evaluation of the contract for 24 hours. On 503 never assume safe.',
    body: 'TokenSafetyRequest', ok: { description: 'The safety report', body: 'TokenSafety' },
    failures: ['ValidationFailed', 'BodyTooLarge', 'RateLimited', 'Unavailable'],
  },
  {
    method: 'post', path: PATHS.simulateBalance, operationId: 'simulateBalance', tag: 'Safety',
    summary: 'Current and post-trade balance, proven by an eth_call state override; no transaction is sent',
    body: 'SimulateBalanceRequest', ok: { description: 'The balances', body: 'SimulateBalanceResponse' },
    failures: ['ValidationFailed', 'BodyTooLarge', 'Unavailable'],
  },
  {
    method: 'get', path: PATHS.auditGlobal, operationId: 'listAuditGlobal', tag: 'Audit',
    summary: 'The newest audit records, newest first', query: AuditQuery,
    ok: { description: 'The records', body: 'AuditGlobalResponse' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: `${PATHS.auditWallet}/{wallet}`, operationId: 'listAuditWallet', tag: 'Audit',
    summary: 'One wallet\'s newest audit records, newest first', query: AuditQuery, pathParams: WalletPath,
    ok: { description: 'The records', body: 'AuditWalletResponse' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: PATHS.auditVerify, operationId: 'verifyAuditGlobal', tag: 'Audit',
    summary: 'Re-hash and link-check the newest records of the global chain', query: AuditQuery,
    ok: { description: 'The verification; `records` lists the problems found', body: 'AuditVerifyGlobalResponse' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: `${PATHS.auditVerify}/{wallet}`, operationId: 'verifyAuditWallet', tag: 'Audit',
    summary: 'Re-hash and link-check one wallet\'s chain', query: AuditQuery, pathParams: WalletPath,
    ok: { description: 'The verification; `records` lists the problems found', body: 'AuditVerifyResponse' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: PATHS.auditExport, operationId: 'exportAuditLines', tag: 'Audit',
    summary: 'The stored audit lines themselves, for bulk verification',
    description: 'One `<hash> <canonical JSON>` line per record; hash exactly these bytes.',
    query: withChain(AuditExportQuery), ok: { description: 'The lines', body: 'text', headers: 'auditExport' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: PATHS.auditFacts, operationId: 'exportAuditFacts', tag: 'Audit',
    summary: 'The facts behind each record, for re-deriving its verdict',
    description: 'One `<seq> <facts_hash> <canonical JSON>` line per record that has facts; SHA-256 of the JSON is the record\'s `facts_hash` (docs/audit-records.md "Replaying verdicts").',
    query: withChain(AuditFactsQuery), ok: { description: 'The facts', body: 'text', headers: 'auditExport' }, failures: LIMITED_QUERY,
  },
  {
    method: 'get', path: PATHS.auditCheckpoint, operationId: 'auditCheckpoint', tag: 'Audit',
    summary: 'A signed checkpoint of the audit tree: the latest, or the one of `tree_size`',
    description: 'RFC 9162-shaped tree over the global chain; verify the Ed25519 signature with the key at /.well-known/audit-key.json (docs/audit-records.md "Checkpoints and proofs").',
    query: CheckpointQuery, ok: { description: 'The checkpoint', body: 'Checkpoint' }, failures: [...LIMITED_QUERY, 'CheckpointNotFound'],
  },
  {
    method: 'get', path: `${PATHS.auditProof}/{seq}`, operationId: 'auditInclusionProof', tag: 'Audit',
    summary: 'Proof that record `seq` is in the tree of a signed checkpoint (the latest, or the one of `tree_size`)',
    description: 'A record outside that checkpoint is a 422; a size no checkpoint has is a 404. On a partitioned log (AUDIT_PARTITIONS > 1) `chain` is required and the proof adds `chain` and `chain_path` (docs/audit-records.md "Partitioned audit chains").',
    pathParams: ProofPath, query: withChain(CheckpointQuery), ok: { description: 'The inclusion proof', body: 'InclusionProof' },
    failures: [...LIMITED_QUERY, 'CheckpointNotFound'],
  },
  {
    method: 'get', path: PATHS.auditConsistency, operationId: 'auditConsistencyProof', tag: 'Audit',
    summary: 'Proof that the checkpoint of size `second` extends the one of size `first`',
    query: ConsistencyQuery, ok: { description: 'The consistency proof', body: 'ConsistencyProof' }, failures: [...LIMITED_QUERY, 'CheckpointNotFound'],
  },
  {
    method: 'get', path: PATHS.auditKey, operationId: 'auditKey', tag: 'Audit',
    summary: 'The Ed25519 public key that signs audit checkpoints', ok: { description: 'The key', body: 'AuditKey' }, failures: [],
  },
  {
    method: 'get', path: PATHS.permitSigner, operationId: 'permitSigner', tag: 'Operations',
    summary: 'The address that signs trade permits, the TradePermitGuard that enforces them and the EIP-712 domain',
    ok: { description: 'The signer', body: 'PermitSigner' }, failures: [],
  },
  {
    method: 'get', path: PATHS.root, operationId: 'serviceInfo', tag: 'Operations',
    summary: 'Service name, version, chain and links', ok: { description: 'Service information', body: 'ServiceInfo' }, failures: [],
  },
  {
    method: 'get', path: PATHS.health, operationId: 'health', tag: 'Operations',
    summary: 'Liveness: the process is up and its cache store answers',
    ok: { description: 'Up', body: 'Health' }, failures: ['StoreUnreachable'],
  },
  {
    method: 'get', path: PATHS.status, operationId: 'status', tag: 'Operations',
    summary: 'Live status of every component; the overall status is the worst component\'s',
    ok: { description: 'The status (200 whatever it says)', body: 'ServiceStatus' }, failures: [],
  },
  {
    method: 'get', path: PATHS.latency, operationId: 'latency', tag: 'Operations',
    summary: 'Latency per route from the service\'s HDR histograms: p50, p90, p99, p99.9 and counts over 1 minute, 5 minutes and 1 hour',
    ok: { description: 'The percentiles, in milliseconds', body: 'LatencyReport' }, failures: [],
  },
  {
    method: 'get', path: PATHS.decisions, operationId: 'decisionsPerMinute', tag: 'Operations',
    summary: 'This instance\'s verdicts per minute by decision (allow, warn, deny) over the last hour, oldest minute first: the status page\'s chart',
    ok: { description: 'Sixty minutes of counts', body: 'DecisionsReport' }, failures: [],
  },
  {
    method: 'get', path: PATHS.debugFeeds, operationId: 'debugFeeds', tag: 'Operations',
    summary: 'Every price feed as the chain has it now: round, answer, updatedAt, age, decimals, stale flag, venue price and deviation',
    description: 'Operators only. 401 without `X-Admin-Token`, 403 with a wrong one or when the service runs without ADMIN_TOKEN.',
    security: 'admin', ok: { description: 'The feeds and the block they were read at', body: 'FeedReport' },
    failures: ['AdminUnauthorized', 'AdminForbidden', 'Unavailable'],
  },
];
