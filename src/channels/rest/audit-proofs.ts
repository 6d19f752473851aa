// Signed checkpoints and Merkle proofs of the audit chain, and the key that signs them (ARCHITECTURE.md "Checkpoints and proofs").
import { PATHS } from '../../catalogue/published-facts.js';
import type { AuditTree, ProofRefusal } from '../../audit/proof/audit-tree.js';
import { PartitionedTree } from '../../audit/proof/partitioned-tree.js';
import type { PublishedKey } from '../../audit/proof/checkpoint.js';
import { failureOf, type Logger } from '../../catalogue/failures.js';
import { errorResponse, json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { CheckpointQuery, ConsistencyQuery, ProofPath } from '../../schemas/audit-proofs.js';
import { namedChain } from './audit-partitions.js';
import { compileValidator, numericParams, type ValidationIssue } from '../../schemas/validator.js';
import { unavailable } from './unavailable.js';

export interface AuditProofDeps {
  /** Null when checkpoints are off (both cadences 0); a PartitionedTree on a partitioned log. */
  tree: AuditTree | PartitionedTree | null;
  key: PublishedKey;
  limiter: RateLimiter;
  log: Logger;
}

const validateCheckpoint = compileValidator(CheckpointQuery, 'query');
const validateProofPath = compileValidator(ProofPath, 'path');
const validateConsistency = compileValidator(ConsistencyQuery, 'query');

type Handle = (tree: AuditTree | PartitionedTree, request: PlainRequest) => Promise<PlainResponse>;

export function auditProofRoutes(deps: AuditProofDeps): Route[] {
  const route = (pattern: string, handle: Handle): Route => ({
    method: 'get',
    pattern,
    handler: (request) => deps.limiter.guard('auditList', request.ip, () => answer(deps, request, handle)),
  });
  return [
    { method: 'get', pattern: PATHS.auditKey, handler: () => json(200, deps.key, { 'cache-control': 'public, max-age=300' }) },
    route(PATHS.auditCheckpoint, checkpoint),
    route(`${PATHS.auditProof}/:seq`, inclusion),
    route(PATHS.auditConsistency, consistency),
  ];
}

async function answer(deps: AuditProofDeps, request: PlainRequest, handle: Handle): Promise<PlainResponse> {
  if (!deps.tree) {
    return errorResponse('audit_proofs_unavailable', 'checkpoints are off on this service (AUDIT_CHECKPOINT_RECORDS=0 and AUDIT_CHECKPOINT_SECONDS=0)');
  }
  try {
    return await handle(deps.tree, request);
  } catch (error) {
    return unavailable(deps.log, request, 'No proof was produced', error, failureOf('audit_unavailable'));
  }
}

/** A refusal as its answer: 404 for a size never signed, 422 for a record outside the tree, 503 while the tree cannot answer. */
function refusal(result: ProofRefusal, loc: ValidationIssue['loc']): PlainResponse {
  if (result.refused === 'no_checkpoint') return errorResponse('checkpoint_not_found', result.detail);
  if (result.refused === 'unavailable') return errorResponse('audit_proofs_unavailable', result.detail);
  return validationFailed([{ loc, msg: result.detail, type: 'value_error' }]);
}

async function checkpoint(tree: AuditTree | PartitionedTree, request: PlainRequest): Promise<PlainResponse> {
  const query = validateCheckpoint(numericParams(CheckpointQuery, request.query));
  if (!query.ok) return validationFailed(query.detail);
  const found = await tree.checkpointAt(query.value.tree_size);
  return 'refused' in found ? refusal(found, ['query', 'tree_size']) : json(200, found);
}

async function inclusion(tree: AuditTree | PartitionedTree, request: PlainRequest): Promise<PlainResponse> {
  const issues: ValidationIssue[] = [];
  const path = validateProofPath(numericParams(ProofPath, request.params));
  if (!path.ok) issues.push(...path.detail);
  const query = validateCheckpoint(numericParams(CheckpointQuery, request.query));
  if (!query.ok) issues.push(...query.detail);
  const named = tree instanceof PartitionedTree ? namedChain(request, tree.partitions, true) : { chain: 0, issues: [] };
  issues.push(...named.issues);
  const { chain } = named;
  if (!path.ok || !query.ok || issues.length > 0) return validationFailed(issues);
  const proof = tree instanceof PartitionedTree
    ? await tree.inclusion(path.value.seq, query.value.tree_size, chain)
    : await tree.inclusion(path.value.seq, query.value.tree_size);
  return 'refused' in proof ? refusal(proof, ['path', 'seq']) : json(200, proof);
}

async function consistency(tree: AuditTree | PartitionedTree, request: PlainRequest): Promise<PlainResponse> {
  const query = validateConsistency(numericParams(ConsistencyQuery, request.query));
  if (!query.ok) return validationFailed(query.detail);
  const proof = await tree.consistency(query.value.first, query.value.second);
  return 'refused' in proof ? refusal(proof, ['query', 'first']) : json(200, proof);
}
