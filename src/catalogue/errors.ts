// Every error the service answers with: a stable code, its HTTP status and words; the methodology lists them.

export interface ErrorInfo {
  status: number;
  /** The `detail` a REST body carries when the answer has nothing more specific to say. */
  message: string;
  /** What it means and what to do, for the methodology's table. */
  meaning: string;
}

// Codes are stable and never reused; a new failure gets a new code.
export const ERRORS = {
  validation_failed: {
    status: 422, message: 'The request is invalid; see the listed fields',
    meaning: 'A field is missing, of the wrong type, out of bounds or undeclared; `detail` lists each in FastAPI\'s shape.',
  },
  idempotency_conflict: {
    status: 422, message: 'request_id was already used with a different request body; use a new request_id for a new trade',
    meaning: 'The request_id was used within its lifetime with another body.',
  },
  conflicting_content_length: {
    status: 400, message: 'Conflicting Content-Length headers',
    meaning: 'Two different Content-Length values (a request-smuggling shape); the connection is closed.',
  },
  not_authenticated: {
    status: 401, message: 'Not authenticated',
    meaning: 'A bearer route was called without an Authorization header.',
  },
  authorization_malformed: {
    status: 401, message: "Authorization header must be 'Bearer <access_token>'",
    meaning: 'The Authorization header is not a bearer JWT.',
  },
  token_invalid: {
    status: 401, message: 'Invalid token',
    meaning: 'The token is not one this service signed (bad signature, wrong key, alg none, malformed claims).',
  },
  token_expired: { status: 401, message: 'Token has expired', meaning: 'The token is past its lifetime; sign in again.' },
  token_revoked: { status: 401, message: 'Token has been revoked', meaning: 'The token was revoked; sign in again.' },
  sign_in_refused: {
    status: 401, message: 'The sign-in was refused',
    meaning: 'No pending message matches the signature, or the message fails a named check (domain, chain, address, nonce, expiry).',
  },
  payment_required: {
    status: 402, message: 'Payment required',
    meaning: 'The paid endpoint was called without a payment; the challenge says what to pay.',
  },
  payment_refused: {
    status: 402, message: 'The payment was refused',
    meaning: 'The payment does not match the terms, was already used, or did not settle; the body carries the challenge again and `reason` says why (docs/x402.md). Nothing was charged without a verdict.',
  },
  admin_token_missing: {
    status: 401, message: 'X-Admin-Token is required',
    meaning: 'An operator route was called without the X-Admin-Token header.',
  },
  admin_token_invalid: {
    status: 403, message: 'X-Admin-Token is not this service\'s admin token',
    meaning: 'The X-Admin-Token header does not match ADMIN_TOKEN (compared in constant time).',
  },
  admin_disabled: {
    status: 403, message: 'Operator routes are disabled: ADMIN_TOKEN is not set on this service',
    meaning: 'The service runs without ADMIN_TOKEN, so /debug/feeds answers nobody.',
  },
  wallet_mismatch: {
    status: 403, message: 'The wallet in the body is not the signed-in wallet',
    meaning: 'A bearer may evaluate and configure only its own wallet.',
  },
  delegation_wrong_operator: {
    status: 403, message: 'The delegation names another operator than the signed-in wallet',
    meaning: 'A fleet delegation (docs/fleet-limits.md "Fleets") is registered only by the operator it names; sign in as that operator.',
  },
  delegation_signature_invalid: {
    status: 403, message: 'The delegation is not signed by the agent it names',
    meaning: 'The EIP-712 FleetDelegation signature does not recover to `agent` over these fields, this chain and this service; have the agent sign the exact message sent.',
  },
  delegation_expired: {
    status: 403, message: 'The delegation has expired',
    meaning: 'The delegation\'s `expiry` is not after now; have the agent sign a new one.',
  },
  delegation_revoked: {
    status: 403, message: 'This delegation was ended and cannot be registered again',
    meaning: 'The agent revoked it, or the operator removed the agent, or a newer delegation replaced it; have the agent sign a new one with a new nonce.',
  },
  agent_not_delegated: {
    status: 403, message: 'This agent has no active delegation to the signed-in operator',
    meaning: 'Only an operator the agent delegated to, before the delegation\'s expiry, may change or remove it (POST /api/v1/fleet/agents registers one).',
  },
  agent_delegated_elsewhere: {
    status: 409, message: 'This agent has an active delegation to another operator',
    meaning: 'An agent has one operator at a time; the agent ends the other delegation first (DELETE /api/v1/fleet/delegation with its own bearer), or it expires.',
  },
  fleet_full: {
    status: 409, message: 'This operator already manages the most agents one fleet may hold',
    meaning: 'A fleet holds at most 100 agents, so its listing stays bounded; remove an agent (DELETE /api/v1/fleet/agents/{agent}) or use another operator wallet.',
  },
  not_found: { status: 404, message: 'Not Found', meaning: 'No route has this path.' },
  method_not_allowed: { status: 405, message: 'Method Not Allowed', meaning: 'The route exists; `Allow` names its methods.' },
  body_too_large: { status: 413, message: 'Request body exceeds the limit', meaning: 'The body is over MAX_BODY_BYTES.' },
  unsupported_media_type: {
    status: 415, message: 'Unsupported Media Type: send the body as application/json',
    meaning: 'A body was sent with a Content-Type other than JSON (`application/json` or `+json`); nothing was read as JSON.',
  },
  uri_too_long: { status: 414, message: 'Request target exceeds the limit', meaning: 'Path and query are over 2,048 bytes.' },
  rate_limited: {
    status: 429, message: 'Rate limit exceeded',
    meaning: 'A per-IP or per-wallet window is full; wait `Retry-After` seconds.',
  },
  internal_error: { status: 500, message: 'Internal Server Error', meaning: 'A fault of this service; it is logged.' },
  chain_unavailable: {
    status: 503, message: 'the chain node did not answer',
    meaning: 'A chain read failed or timed out; no result was produced. Retry later; never assume safe.',
  },
  chain_not_configured: {
    status: 503, message: 'this capability needs a chain node',
    meaning: 'The service runs offline (REGISTRY_FILE without RPC_URL), so chain-backed answers do not exist.',
  },
  store_unavailable: {
    status: 503, message: 'the cache store did not answer',
    meaning: 'The shared store failed or is not yet verified after a reconnect.',
  },
  store_lost_state: {
    status: 503, message: 'the shared store lost state',
    meaning: 'The shared store came back without data this service had seen; evaluations and sign-ins stop until an operator acts.',
  },
  permits_unavailable: {
    status: 503, message: 'this service issues no trade permits',
    meaning: 'The request asked for a trade permit (`permit: true`) and the service has no TradePermitGuard configured; nothing was evaluated or charged. Ask without `permit`, or use a service that publishes `permit_signer`.',
  },
  facilitator_unavailable: {
    status: 503, message: 'the x402 facilitator did not answer',
    meaning: 'The facilitator that verifies and settles payments is unreachable, timed out or failed; no verdict was released and nothing was charged. Retry with the same payment.',
  },
  checkpoint_not_found: {
    status: 404, message: 'No checkpoint has that tree_size',
    meaning: 'The audit tree was never signed at that size; `GET /api/v1/audit/checkpoint` gives the latest.',
  },
  audit_proofs_unavailable: {
    status: 503, message: 'the audit tree cannot give proofs now',
    meaning: 'The proof tree is still reading the log back after a start, checkpoints are off, or the log no longer matches a signed checkpoint (`/status.json` says which).',
  },
  scoring_unavailable: { status: 503, message: 'the scoring pool did not answer', meaning: 'The risk engine\'s worker pool failed.' },
  service_stopping: {
    status: 503, message: 'The service is stopping; send the request again',
    meaning: 'The service was told to stop (SIGTERM or SIGINT): it finishes the requests it already took, and one that arrives meanwhile on an open connection is refused with `Retry-After` and the connection closed, nothing evaluated, recorded or charged. Send it again; it reaches another instance or the restarted one.',
  },
  audit_unavailable: {
    status: 503, message: 'the audit log did not record the verdict',
    meaning: 'The audit log could not be written or read (a failed write, a full disk, a log file replaced or truncated under the service, a Redis not connected, or fewer Redis replicas than `AUDIT_REPLICA_ACKS` confirming the record or online to confirm it; `/status.json` and `/healthz` say which); no verdict is given without its record.',
  },
  audit_facts_damaged: {
    status: 503, message: 'the facts kept for a record do not hash to its facts_hash',
    meaning: 'The facts export met a record whose kept facts (`facts.log`, or the Redis facts hash) no longer hash to the `facts_hash` they are listed under, so it serves none of them, or a listing met a format 3 record whose outcome document is not kept or no longer hashes to its `outcome_hash`; `detail` names the record and where its facts are kept. The operator restores them from a copy; `npm run audit:verify` lists every damaged record.',
  },
  sign_in_contended: {
    status: 503, message: 'too many sign-in requests for this address at once; retry',
    meaning: 'Concurrent sign-ins for one address kept colliding; retry.',
  },
  budget_contended: {
    status: 503, message: 'too many trades of this wallet were counted against its daily budget at once; retry',
    meaning: "A wallet with a daily budget (README \"Fleet limits\") had other verdicts counted against it each time this one was judged again; nothing was counted for this one. Retry.",
  },
} as const satisfies Record<string, ErrorInfo>;

export type ErrorCode = keyof typeof ERRORS;

/** The REST body of an error: `{detail, code}`, plus what the answer adds (the 422 list replaces `detail`). */
export function errorBody(code: ErrorCode, detail?: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { detail: detail ?? ERRORS[code].message, code, ...extra };
}
