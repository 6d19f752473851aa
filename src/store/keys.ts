// Every key the service writes in the shared cache store, named once (the Redis store adds its `tg:` prefix).

/**
 * A Redis Cluster hash tag: the keys that carry the same `{...}` live in one slot, so one script or
 * multi-key command may touch them together (ARCHITECTURE.md "Redis Cluster"). A wallet's keys are
 * tagged by the wallet, so its shared and proven windows share a slot. Every key carries exactly one
 * tag, placed before anything a caller chose (a request_id), so the first `{` is always the tag's.
 */
const tag = (id: string) => `{${id}}`;

/**
 * The name a store on one node keeps: the first tag's braces removed, which is the name every key had
 * before clusters, so a single Redis or the LMDB files keep what they hold across the upgrade.
 */
export function untagged(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close < 0 ? key : key.slice(0, open) + key.slice(open + 1, close) + key.slice(close + 1);
}

/** The latest token-safety result of a contract (kept 10 minutes). */
export const safetyKey = (address: string) => `safety:${tag(address.toLowerCase())}`;

/** A `danger` token-safety finding, which denies every evaluation of the contract for 24 hours. */
export const dangerKey = (address: string) => `danger:${tag(address.toLowerCase())}`;

/** A wallet's policy: `{"blocked_assets": [...], "limits": {...} | null}`, no expiry. */
export const policyKey = (wallet: string) => `policy:${tag(wallet.toLowerCase())}`;

/** What a wallet's allowed and warned trades used of its daily budget on a UTC day (`YYYY-MM-DD`), in whole cents. */
export const dailyBudgetKey = (wallet: string, day: string) => `budget:${tag(wallet.toLowerCase())}:${day}`;

/** The delegation an agent signed to its operator (ARCHITECTURE.md "Fleets"), kept until its expiry. */
export const delegationKey = (agent: string) => `delegation:${tag(agent.toLowerCase())}`;

/** A delegation that was ended (revoked, removed or replaced), by its nonce, kept until its expiry so it cannot be registered again. */
export const endedDelegationKey = (agent: string, nonce: string) => `delegation:${tag(agent.toLowerCase())}:ended:${nonce}`;

/** The agents an operator registered, a JSON array of addresses: the index GET /api/v1/fleet reads. */
export const fleetKey = (operator: string) => `fleet:${tag(operator.toLowerCase())}`;

/** A request_id's claim and, once evaluated, its verdict; scoped to channel and wallet. */
export const idempotencyKey = (scope: string, requestId: string) => `idem:${tag(scope)}:${requestId}`;

/** An x402 payment (payer and authorization nonce): its claim and, once settled, the verdict it bought. */
export const paymentKey = (payer: string, nonce: string) => `x402:${tag(payer.toLowerCase())}:${nonce.toLowerCase()}`;

/** A paid verdict settled but not recorded (the log failed in between): kept until the payer's retry records it. */
export const owedPaymentKey = (payer: string, nonce: string) => `x402owed:${tag(payer.toLowerCase())}:${nonce.toLowerCase()}`;

/** The sign-in messages pending for an address. */
export const pendingSignInKey = (address: string) => `siwe:${tag(address.toLowerCase())}`;

/** A revoked access token's id, kept until the token would have expired. */
export const revokedTokenKey = (jti: string) => `revoked:${tag(jti)}`;

/** The first valuation of a wallet's holdings on a UTC day, the daily P&L baseline. */
export const pnlSnapshotKey = (wallet: string, day: string) => `pnl:${tag(wallet.toLowerCase())}:${day}`;

/** A wallet's sliding evaluation window, shared by the channels that carry no proof of the wallet (spec "Limits"). */
export const walletWindowKey = (wallet: string) => `rl:wallet:${tag(wallet.toLowerCase())}`;

/** The window of a wallet's proven calls (its bearer token, its own x402 payment), which unproven calls cannot fill. */
export const provenWindowKey = (wallet: string) => `rl:wallet:${tag(wallet.toLowerCase())}:proven`;

/** One per-IP sliding window of one route family. */
export const ipWindowKey = (bucket: string, ip: string) => `rl:ip:${bucket}:${tag(ip)}`;
