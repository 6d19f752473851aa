// /skill.md: how an agent uses the service, step by step, with the live tiers, limits and payment terms.
import { formatUnits } from 'viem';
import { TOKEN_LIFETIME_S } from '../../auth/access-tokens.js';
import { NONCE_TTL_MS } from '../../auth/pending-messages.js';
import { ERRORS } from '../../catalogue/errors.js';
import { CHANNEL_TIERS, PATHS, PAYMENT, SERVICE, tierFacts, tierLabel } from '../../catalogue/published-facts.js';
import type { Config } from '../../config.js';

export function skillMd(config: Readonly<Config>, baseUrl: string): string {
  return [
    '---',
    `name: ${SERVICE.name}`,
    `description: Ask before every trade on ${SERVICE.chain.name} whether it may proceed; allow, warn or deny with reasons and an audit record.`,
    '---',
    '',
    `# Using ${SERVICE.name}`,
    '',
    `${SERVICE.description} Base URL: ${baseUrl}. Bodies are JSON.`,
    '',
    ...resolveStep(),
    ...accessStep(config, baseUrl),
    ...verdictStep(),
    ...retryStep(config),
    ...errorTable(),
  ].join('\n');
}

function resolveStep(): string[] {
  return [
    '## 1. Resolve symbols first',
    '',
    `\`GET ${PATHS.assets}\` lists each \`symbol\` with its canonical \`contract_address\`. Put both in the trade: an address that`,
    'differs from the registry entry for the symbol is denied as a suspected fake token. Refresh the list now and then rather',
    'than caching it forever. `amount` is in token units, not USD.',
    '',
  ];
}

function accessStep(config: Readonly<Config>, baseUrl: string): string[] {
  const rows = tierFacts(config).map(
    (t) => `| ${t.tier} | ${t.minTokens.toLocaleString('en-US')} | ${t.maxTradeUsd.toLocaleString('en-US')} | ${t.walletWindowLimit} per ${t.windowSeconds} s |`,
  );
  const price = formatUnits(BigInt(PAYMENT.amountBaseUnits), PAYMENT.assetDecimals);
  return [
    '## 2. Evaluate: public, signed in, or paid',
    '',
    `- **Public**: \`POST ${PATHS.analyzeFree}\` with the trade, always ${tierLabel(CHANNEL_TIERS.free)}; limited per IP.`,
    `- **Sign in (SIWE)**: \`GET ${PATHS.authNonce}?address=<wallet>\` returns \`{message}\`, an EIP-4361 message valid ${NONCE_TTL_MS / 60_000} minutes`,
    '  and single use. Sign it with EIP-191 `personal_sign` (no gas), then `POST ' + PATHS.authWallet + '` with `{address, signature}`:',
    `  the \`access_token\` is valid ${TOKEN_LIFETIME_S} s. Send \`Authorization: Bearer <access_token>\` to \`POST ${PATHS.analyzeTrade}\`; the tier`,
    '  follows the wallet\'s service-token holdings, and the body\'s `wallet` must be the signed-in wallet.',
    `- **Pay (x402 v${PAYMENT.x402Version})**: \`POST ${PATHS.x402Analyze}\` with the trade answers 402 with the terms (body and the`,
    `  \`PAYMENT-REQUIRED\` header): ${PAYMENT.amountBaseUnits} base units (${price}) of the settlement stablecoin, valid ${PAYMENT.maxTimeoutSeconds} s. Sign the EIP-3009`,
    `  authorization with an x402 client (the header is a v2 \`PaymentRequired\`) and send the same request with the payment in`,
    `  \`PAYMENT-SIGNATURE\` (v2) or \`${PAYMENT.header}\` (v1): one verdict at`,
    `  ${tierLabel(PAYMENT.tierGranted)} per payment. Terms: ${baseUrl}${PATHS.x402Manifest}.`,
    `- **MCP**: \`${baseUrl}${PATHS.mcp}\`: \`evaluate_trade\` at ${tierLabel(CHANNEL_TIERS.mcp)}, \`evaluate_trade_paid\` paid as above (the payment in \`payment_proof\`).`,
    `- **A2A**: \`POST ${baseUrl}${PATHS.a2aRest}/message:send\` (HTTP+JSON, A2A 1.0) or \`${baseUrl}${PATHS.a2a}\` (JSON-RPC), from the agent card: a message with one data part holding the TradeRequest is`,
    `  evaluated at ${tierLabel(CHANNEL_TIERS.a2a)}; the completed task's \`verdict\` artifact is the Verdict, and no verdict is an A2A error.`,
    '',
    '| tier | service-token holdings | max notional per trade (USD) | evaluations per wallet |',
    '|---|---|---|---|',
    ...rows,
    '',
    'A wallet below the Tier 1 holdings still gets Tier 1 (`preview_mode` is true).',
    '',
  ];
}

function verdictStep(): string[] {
  return [
    '## 3. Read the answer',
    '',
    '- `allow`: the trade may proceed. `warn`: it may proceed but is flagged. `deny`: do not trade.',
    '- Reasons starting `ADVISORY:` are context only; the others drove the decision.',
    '- **An `error` key is a hard stop**: no verdict was produced. Do not trade; do not read it as `allow`. The same holds for an',
    '  MCP result with `isError`, for token safety (never assume safe) and for audit verification (never assume intact).',
    '',
  ];
}

function retryStep(config: Readonly<Config>): string[] {
  return [
    '## 4. Slow down and retry safely',
    '',
    '- HTTP 429: wait the `Retry-After` seconds before sending again. In steady state send at most one request per second per wallet.',
    '- HTTP 503: a dependency did not answer; retry later with backoff. `service_stopping` means the service is restarting: reconnect and send again after its `Retry-After`.',
    `- Give every new trade a new \`request_id\`. When you never saw the answer (timeout, dropped connection), retry with the **same**`,
    `  \`request_id\` and body: you get the same verdict and one audit record. The key is kept ${config.idempotencyTtlMs / 1000} s; the same key with another`,
    '  body is refused (422 `idempotency_conflict`).',
    '',
  ];
}

function errorTable(): string[] {
  return [
    '## Error codes',
    '',
    'Every error body carries a stable `code`:',
    '',
    '| code | HTTP status |',
    '|---|---|',
    ...Object.entries(ERRORS).map(([code, info]) => `| \`${code}\` | ${info.status} |`),
    '',
  ];
}
