// Every key the service writes in the shared cache store, named once (the Redis store adds its `tg:` prefix).

/** The latest token-safety result of a contract (kept 10 minutes). */
export const safetyKey = (address: string) => `safety:${address.toLowerCase()}`;

/** A `danger` token-safety finding, which denies every evaluation of the contract for 24 hours. */
export const dangerKey = (address: string) => `danger:${address.toLowerCase()}`;

/** A wallet's policy: `{"blocked_assets": [...]}`, no expiry. */
export const policyKey = (wallet: string) => `policy:${wallet.toLowerCase()}`;

/** A request_id's claim and, once evaluated, its verdict; scoped to channel and wallet. */
export const idempotencyKey = (scope: string, requestId: string) => `idem:${scope}:${requestId}`;

/** An x402 payment (payer and authorization nonce): its claim and, once settled, the verdict it bought. */
export const paymentKey = (payer: string, nonce: string) => `x402:${payer.toLowerCase()}:${nonce.toLowerCase()}`;

/** A paid verdict settled but not recorded (the log failed in between): kept until the payer's retry records it. */
export const owedPaymentKey = (payer: string, nonce: string) => `x402owed:${payer.toLowerCase()}:${nonce.toLowerCase()}`;

/** The sign-in messages pending for an address. */
export const pendingSignInKey = (address: string) => `siwe:${address.toLowerCase()}`;

/** A revoked access token's id, kept until the token would have expired. */
export const revokedTokenKey = (jti: string) => `revoked:${jti}`;

/** The first valuation of a wallet's holdings on a UTC day, the daily P&L baseline. */
export const pnlSnapshotKey = (wallet: string, day: string) => `pnl:${wallet.toLowerCase()}:${day}`;

/** A wallet's sliding evaluation window, shared by the channels that carry no proof of the wallet (spec "Limits"). */
export const walletWindowKey = (wallet: string) => `rl:wallet:${wallet.toLowerCase()}`;

/** The window of a wallet's proven calls (its bearer token, its own x402 payment), which unproven calls cannot fill. */
export const provenWindowKey = (wallet: string) => `rl:wallet:${wallet.toLowerCase()}:proven`;

/** One per-IP sliding window of one route family. */
export const ipWindowKey = (bucket: string, ip: string) => `rl:ip:${bucket}:${ip}`;
