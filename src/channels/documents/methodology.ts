// Renders the risk methodology document from the live catalogue, tiers and limits, so it cannot drift.
import { REHASH_EXAMPLE } from './rehash-example.js';
import { chainFactsSection } from './chain-facts-section.js';
import { counterfactualsSection } from './counterfactuals-section.js';
import { permitsSection } from './permits-section.js';
import { paymentSection } from './payment-section.js';
import { ERRORS } from '../../catalogue/errors.js';
import type { Config } from '../../config.js';
import { REASON_CODES } from '../../risk/reason-codes.js';
import { TIER_POLICIES } from '../../risk/tiers.js';
import { THRESHOLDS } from '../../risk/weights.js';
import { TOKEN_LIFETIME_S } from '../../auth/access-tokens.js';
import { MAX_PENDING_MESSAGES, NONCE_TTL_MS } from '../../auth/sign-in.js';
import { MAX_ECHO_CHARS, MAX_JSON_DEPTH } from '../../schemas/json-shape.js';
import { checkpointSection, recordedFactsSection, scoringTableSection } from './audit-proof-sections.js';

const usd = (value: number) => value.toLocaleString('en-US');

export function renderMethodology(config: Readonly<Config>): string {
  return [
    '# Risk methodology',
    '',
    'Each evaluation gathers facts (registry entry, price, token-safety flag, wallet policy, rate window),',
    'scores them with a pure deterministic engine, appends a hash-chained audit record, and only then answers.',
    'Identical inputs and facts give an identical decision and score.',
    '',
    scoreSection(),
    scoringTableSection(),
    tierSection(config),
    reasonSection(),
    errorSection(),
    decisionsSection(config),
    counterfactualsSection(),
    permitsSection(config),
    paymentSection(),
    chainFactsSection(),
    auditSection(),
  ].join('\n');
}

function scoreSection(): string {
  return [
    '## Score and bands',
    '',
    'The risk score is an integer 0-100, the sum of five categories: registry & identity (max 30),',
    'contract safety (30), price & market data quality (15), wallet behavior (15), trade parameters (10).',
    'Bands: 0-30 `allow`, 31-70 `warn`, 71-100 `deny`. Every per-signal weight is in the scoring table below.',
    'Hard overrides force `deny` whatever the band; they are the reason codes marked "forces deny" below.',
    '`SELL_SIZE_UNPROVEN` (a trade larger than any sell the token-safety check saw go through at once) makes the verdict at least `warn`.',
    'A response with an `error` key (HTTP 503 on REST) means no verdict was produced: do not trade.',
    '',
  ].join('\n');
}

function tierSection(config: Readonly<Config>): string {
  const rows = Object.values(TIER_POLICIES).map(
    (p) =>
      `| ${p.tier} | ${usd(p.maxTradeUsd)} | ${usd(p.advisoryFloorUsd)} | ${usd(p.dailyLossLimitUsd)} | ${config.rateLimits.walletPerTier[p.tier]} |`,
  );
  return [
    '## Tiers',
    '',
    '| tier | max notional per trade (USD) | advisory floor (USD) | daily loss limit (USD) | evaluations per wallet per window |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `The per-wallet window is ${config.rateLimits.windowMs / 1000} s, sliding. Calls that carry no proof of the wallet (analyze/free, demo, MCP, A2A, a payment from another payer) share one window per wallet;`,
    'calls that prove it (the bearer of analyze/trade, a payment signed by the wallet) have a window of the same size that unproven calls cannot fill.',
    'A proven call is also counted in the shared window, so unproven calls naming the wallet see its own use; `RATE_WINDOW_NEAR_LIMIT` counts the window that limited the call.',
    'The advisory floor: a trade priced only by a built-in default (`fallback_default`) may proceed below it;',
    'above it the trade is denied. Without any price (`unavailable`) every trade is denied.',
    '',
  ].join('\n');
}

function reasonSection(): string {
  const rows = Object.entries(REASON_CODES).map(
    ([code, info]) => `| \`${code}\` | ${info.kind} | ${info.category} | ${info.forcesDeny ? 'yes' : 'no'} | ${info.meaning} |`,
  );
  return [
    '## Reason codes',
    '',
    'Every reason reads `CODE: words`; non-blocking context reads `ADVISORY: CODE: words`.',
    'Codes are stable and never reused.',
    '',
    '| code | kind | category | forces deny | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function errorSection(): string {
  const rows = Object.entries(ERRORS).map(([code, info]) => `| \`${code}\` | ${info.status} | ${info.meaning} |`);
  return [
    '## Error codes',
    '',
    'Every error body carries a stable `code`: REST as `{"detail": "...", "code": "..."}` (a 422 keeps FastAPI\'s',
    '`detail` list beside its code), an error verdict beside its `error`, an MCP error result in its structured',
    'content and text, an A2A error (HTTP+JSON or JSON-RPC) in its error info\'s `metadata.code`. Codes are never reused.',
    '',
    '| code | HTTP status | meaning |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function decisionsSection(config: Readonly<Config>): string {
  const ip = config.rateLimits.ip;
  return [
    '## Decisions where the specification is silent',
    '',
    '- `deadline` is a Unix time in seconds; a deadline already passed denies.',
    '- A `danger` token-safety finding forces deny on that contract for 24 hours.',
    '- Market hours: NYSE regular session 09:30-16:00 America/New_York, exchange holidays and 13:00 early closes included.',
    '- Daily loss: registry holdings marked to market against the first snapshot of the UTC day (`daily_pnl_usd`), each asset at the lower of its oracle and venue prices.',
    `- Prices that disagree: \`price_usd\` is the live oracle round, else the venue pool (a stale round beside a live pool is no quote), else the stale round. When both priced the asset, the notional is judged at the higher of the two (the ceiling, \`NOTIONAL_NEAR_TIER_LIMIT\`, \`max_allowed_amount\`), never the cheaper; more than ${THRESHOLDS.deviationBps} bps apart is \`PRICE_DEVIATION\`, more than ${THRESHOLDS.disagreementBps.toLocaleString('en-US')} bps apart denies (\`PRICE_SOURCES_DISAGREE\`). The recorded facts keep both prices, so a replay re-derives the rule.`,
    `- Price impact: for an asset whose registry venue is a v4 pool, the service quotes the trade's exact amount on that pool at the evaluated block (a buy as exact output, a sell as exact input), with v4's own math over the pool's price, liquidity and initialized ticks, read once per block. \`price_impact_bps\` is how far the fill lands from the pool's price before the trade, fees excluded (null when no pool was read). Above the request's \`max_slippage_bps\`, or a size the pool cannot fill, denies (\`PRICE_IMPACT_EXCEEDS_SLIPPAGE\`: the swap would revert at the caller's own limit, or fill outside it); above ${THRESHOLDS.priceImpactSteps.map(([bps]) => bps).reverse().join(' or ')} bps within it adds points (\`PRICE_IMPACT_HIGH\`); with no pool read (offline, no venue, a pool with no liquidity) an advisory says the impact is unknown (\`PRICE_IMPACT_UNKNOWN\`). \`max_allowed_amount\` stays within the tolerance, no permit is signed beyond it, and the recorded facts keep the pool state, so a replay re-derives it.`,
    `- No TradePermit on a doubted price: \`permit: true\` with a stale round, sources more than ${THRESHOLDS.deviationBps} bps apart or a built-in default is denied (\`PERMIT_ON_FLAGGED_PRICE\`).`,
    `- Per-IP limits per window: analyze/free ${ip.free}, demo ${ip.demo}, token-safety ${ip.tokenSafety}, audit listing ${ip.auditList}, audit verification ${ip.auditVerify}, MCP ${ip.mcp}, A2A ${ip.a2a}. Over a limit: HTTP 429 with \`Retry-After\`.`,
    '- What survives a restart: wallet policies, token revocations, danger flags and token-safety results, x402 payment claims with the verdicts they bought (and verdicts paid for but not yet recorded), `request_id` keys within their lifetime, pending sign-in messages and daily P&L baselines. Without Redis they are kept on disk under `DATA_DIR` (LMDB) and written before the answer; with Redis, in Redis. Rate windows are kept in memory without Redis, so they start empty after a restart.',
    `- \`request_id\` is an idempotency key kept ${config.idempotencyTtlMs / 1000} s per wallet and channel; the same key with another body is refused with 422 at \`["body","request_id"]\`.`,
    '- REST bodies accept no undeclared fields (`extra_forbidden`), and types are strict: `"1"` is not a number.',
    `- Input bounds: JSON nests at most ${MAX_JSON_DEPTH} levels (\`json_invalid\` at the field); numbers are finite (\`finite_number\`; \`1e309\` is refused, not read as infinity); \`amount\` and \`|delta|\` are at most 10^30 token units, so every accepted quantity converts to an exact uint256 at up to 36 decimals; a trade's \`amount\` is at least one base unit of the token (the registry's decimals for the symbol, else the contract's, else 18 when neither is listed; the grid a permit's \`maxAmount\` is on), or it is refused on every channel as a \`value_error\` at \`amount\` before anything is counted, recorded or charged; strings and keys are well-formed UTF-16 (\`string_unicode\`). A 422 echoes at most ${MAX_ECHO_CHARS} characters of the value it refuses.`,
    '',
    signInDecisions(),
  ].join('\n');
}

function signInDecisions(): string {
  return [
    '## Sign-in, access tokens and previews',
    '',
    `- The nonce message is an EIP-4361 (Sign-In with Ethereum) message for chain ID 4663, bound to this service's domain and URI, with a random nonce; it is valid ${NONCE_TTL_MS / 60_000} minutes and single use. Signing it with EIP-191 \`personal_sign\` costs no gas; EIP-1271 contract wallets are verified through the chain.`,
    `- Up to ${MAX_PENDING_MESSAGES} messages wait per address at once. Anyone may ask for a nonce for any address, so asking again never invalidates a message already handed out; past ${MAX_PENDING_MESSAGES} the oldest is dropped. A signature is matched against each waiting message, and a refusal (HTTP 401) names the check that failed: no message pending, signature, domain, chain, address, nonce or expiry. A message is spent only by a sign-in that succeeds: one that fails because the chain node or the store did not answer (HTTP 503 with \`code\` \`chain_unavailable\` or \`store_unavailable\`) leaves it pending, and the same signature may be sent again.`,
    '- A 503 says what failed in words and a `code`; it never carries a node URL, call data or a dependency\'s own error text. Those go to the service\'s log (stderr), with URLs cut to scheme, host and port since RPC providers put credentials in the rest.',
    `- The access token is an HS256 JWT with a \`jti\`, valid ${TOKEN_LIFETIME_S} s (\`expires_in_seconds\`). Revocation records the \`jti\` in the store until the token would have expired, on disk before the answer (Redis when the service runs with one), so a restart keeps it; a revoked or expired token gets HTTP 401 with \`WWW-Authenticate: Bearer\`.`,
    "- `preview_mode` is true when the wallet holds less than the Tier 1 threshold. `x-preview-tier` (1, 2 or 3) evaluates at another tier's ceiling; a preview above the tier the holdings grant is always `deny` with `PREVIEW_ABOVE_ENTITLEMENT` first, a hard override like the others: the score and the other reasons show what that tier would say, and the decision never says the trade may proceed. Every decision is the score's band (raised to `warn` by `SELL_SIZE_UNPROVEN`) or a `deny` named by a hard override.",
    '',
  ].join('\n');
}

function auditSection(): string {
  return [
    '## Audit records',
    '',
    'Each record is the RFC 8785 canonical JSON of `{seq, ts, wallet, channel, request, decision, risk_score,',
    'tier, format, facts_hash, outcome_hash, prev_hash, wallet_prev_hash}` (format 3; `payment` too on paid verdicts,',
    'below): `outcome_hash` names the verdict\'s `reasons`, `price_usd` and `price_source`, kept beside its facts, and',
    '`request` leaves out a `wallet` equal to the record\'s. Records written before hold those three themselves: format',
    '2 (with `format` and `facts_hash`) and format 1 (neither). `hash` is the lower-case hex SHA-256',
    'of those canonical bytes. `prev_hash` is the hash of record `seq - 1` (64 zeros for the first record);',
    "`wallet_prev_hash` is the hash of the same wallet's previous record, so one wallet's chain verifies alone.",
    '',
    auditRecipe(),
    auditVerification(),
    recordedFactsSection(),
    checkpointSection(),
  ].join('\n');
}

function auditRecipe(): string {
  return [
    '### Re-hashing a record yourself',
    '',
    'The listings (`GET /api/v1/audit/global`, `GET /api/v1/audit/wallet/{wallet}`, newest first) return each record',
    'as stored plus its `hash` (and `chain` on a partitioned log), and a format 3 record with its outcome (`reasons`,',
    '`price_usd`, `price_source`) resolved beside it. To check one: remove those, write the rest in RFC 8785 canonical form (keys sorted by',
    'UTF-16 code units, no whitespace, numbers and strings as ECMAScript `JSON.stringify` writes them), take SHA-256',
    'of its UTF-8 bytes, and compare the lower-case hex with `hash`. Then each `prev_hash` must equal the `hash` of',
    'the record one seq lower (`wallet_prev_hash` in a wallet listing). In plain Node, with the listing on stdin:',
    '',
    '```js',
    REHASH_EXAMPLE.trimEnd(),
    '```',
    '',
  ].join('\n');
}

function auditVerification(): string {
  return [
    '### Verification',
    '',
    '`GET /api/v1/audit/verify` checks the newest `limit` records (default 100, at most 1000) of the global chain and',
    '`GET /api/v1/audit/verify/{wallet}` those of one wallet: each record\'s stored bytes are hashed as stored (never',
    're-serialized), seqs must run up by one (in a wallet, increase), and each record must link to the one before it;',
    "the first links to its predecessor when there is one, and the global chain must end at the store's head, since a",
    'cut tail leaves no other trace. `total` is the records checked; `tampered` the records that fail, plus each',
    'record missing from a cut tail; `healthy` is true only when `tampered` is 0. `records` lists the first 100',
    'problems in stored order as `{seq, hash, problem}` with `problem` one of `hash_mismatch` (bytes and hash',
    'differ), `broken_link`, `seq_gap` (records missing before it), `reorder` (stored out of seq order),',
    '`unparseable`, `truncated` (the chain ends before the head; `hash` null) and `head_mismatch`. `first_broken_seq`',
    'is the seq of the first record, in stored order, whose hash, seq or link fails (null when healthy): every record',
    'stored before it verified. A record whose bytes fail stands for the seq expected at its place, and a link may name',
    "the previous record's stored or its real hash, so one damaged record is reported once. A deleted record is",
    'reported at the record after the hole; two swapped records at the first one out of place. The global check also',
    "hashes the facts kept beside each record it checked: facts that do not hash to the record's `facts_hash` are",
    '`facts_mismatch`, facts not kept under it `facts_missing`, and a format 3 record\'s outcome document likewise',
    '`outcome_mismatch` or `outcome_missing`, each with `location` naming where the facts are kept; a',
    'record whose own bytes fail is reported by its bytes alone.',
    '',
    'The whole chain: `npm run audit:verify -- <DATA_DIR | audit.log | records.jsonl | http://host:port>`, which',
    'pages a running service through `GET /api/v1/audit/export?from_seq=&limit=` (the stored lines as they are).',
    'Exit status 0 only when healthy. A log file alone cannot show a cut tail: `--head SEQ:HASH` (an `audit_seq` and',
    '`audit_hash` from a verdict) requires the chain to reach that record with that hash.',
    '',
  ].join('\n');
}
