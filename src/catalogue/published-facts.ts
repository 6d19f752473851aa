// The facts the service publishes, stated once: versions, paths, tiers, channel tiers, payment terms, limits.
import { minTokensFor, TIER_POLICIES } from '../risk/tiers.js';
import type { Tier } from '../risk/types.js';
import { formatNumber } from '../risk/format.js';
import { SERVICE_LICENSE, SERVICE_NAME, SERVICE_VERSION } from './version.js';

/**
 * Spec "Versioning". Two versions, each stated here only: `service` is this build of the service
 * (package.json), the `version` of every document that describes the running service (`/`,
 * `/status.json`, MCP's serverInfo, the agent card, glama.json, the AI catalog's entries); `api` is
 * the published interface, the spec's REST description and MCP server card version (the later card:
 * address patterns, evaluate_trade_paid, decimals on registry entries, slippage 10000), the `version`
 * of the documents that describe the interface (OpenAPI `info`, the MCP server card) and the
 * `api_version` of the others. ARCHITECTURE.md "Versions".
 */
export const VERSIONS = Object.freeze({
  service: SERVICE_VERSION,
  api: '1.0.3',
  mcpProtocol: '2025-06-18',
  agentCardProtocol: '0.3.0',
  x402: 1,
});

export const SERVICE = Object.freeze({
  name: SERVICE_NAME,
  description:
    'Pre-trade risk guardrail for autonomous trading agents on Robinhood Chain: allow, warn or deny with reasons, ' +
    'a risk score, a price and a hash-chained audit record.',
  chain: Object.freeze({ id: 4663, caip2: 'eip155:4663', name: 'Robinhood Chain' }),
  /** package.json's `license`, which directory metadata repeats. */
  license: SERVICE_LICENSE,
});

/** Spec "Endpoints": the paths every route, card and document names. */
export const PATHS = Object.freeze({
  root: '/',
  assets: '/api/v1/assets',
  analyzeFree: '/api/v1/analyze/free',
  demoAnalyze: '/api/v1/demo/analyze',
  analyzeTrade: '/api/v1/analyze/trade',
  x402Analyze: '/api/x402/analyze',
  authNonce: '/api/v1/auth/nonce',
  authWallet: '/api/v1/auth/wallet',
  authRevoke: '/api/v1/auth/revoke',
  config: '/api/v1/config',
  /** An operator's fleet (docs/fleet-limits.md "Fleets"): the listing; agents under `/agents`, followed by `/{agent}` and `/{agent}/config`. */
  fleet: '/api/v1/fleet',
  fleetAgents: '/api/v1/fleet/agents',
  /** The signed-in agent's own delegation, which it ends with DELETE. */
  fleetDelegation: '/api/v1/fleet/delegation',
  tokenSafety: '/api/v1/token-safety',
  simulateBalance: '/api/v1/simulate-balance',
  auditGlobal: '/api/v1/audit/global',
  /** Followed by `/{wallet}`. */
  auditWallet: '/api/v1/audit/wallet',
  /** Without a wallet: the global chain; followed by `/{wallet}`: that wallet's. */
  auditVerify: '/api/v1/audit/verify',
  auditExport: '/api/v1/audit/export',
  auditFacts: '/api/v1/audit/facts',
  auditCheckpoint: '/api/v1/audit/checkpoint',
  auditProof: '/api/v1/audit/proof',
  auditConsistency: '/api/v1/audit/consistency',
  auditKey: '/.well-known/audit-key.json',
  permitSigner: '/.well-known/permit-signer.json',
  health: '/healthz',
  status: '/status.json',
  /** The status as a page that refreshes itself. */
  statusPage: '/status',
  metrics: '/metrics',
  latency: '/metrics/latency.json',
  /** Verdicts per minute by decision, the last hour: the status page's chart. */
  decisions: '/metrics/decisions.json',
  latencyPage: '/latency.html',
  /** Operators only (X-Admin-Token). */
  debugFeeds: '/debug/feeds',
  /** Scripts and styles the operations pages load, served from installed packages. */
  pageAssets: '/assets',
  mcp: '/mcp-http/mcp',
  /** The A2A endpoint (JSON-RPC, A2A 1.0 and 0.3 by the A2A-Version header). */
  a2a: '/a2a',
  /** A2A's HTTP+JSON binding, the card's preferred transport: `POST /v1/message:send` and the task routes under it. */
  a2aRest: '/v1',
  methodology: '/.well-known/methodology.md',
  methodologyHtml: '/methodology.html',
  openapi: '/openapi.json',
  /** The interactive API reference; its scripts and styles are served under `/docs/assets/`. */
  docs: '/docs',
  /** The first is the card's own path; the others are the spec's aliases. */
  mcpServerCard: Object.freeze(['/.well-known/mcp-server-card.json', '/.well-known/mcp/server-card.json', '/.well-known/mcp.json']),
  agentCard: Object.freeze(['/.well-known/agent-card.json', '/.well-known/agents.json', '/agents.json']),
  x402Manifest: '/.well-known/x402.json',
  glama: '/.well-known/glama.json',
  aiCatalog: '/.well-known/ai-catalog.json',
  knownIssues: '/.well-known/known-issues.json',
  llmsTxt: '/llms.txt',
  skill: '/skill.md',
  robots: '/robots.txt',
  sitemap: '/sitemap.xml',
});

/** Spec "Channels" and "Tiers": the tier each channel evaluates at when no holdings speak. */
export const CHANNEL_TIERS = Object.freeze({ free: 1, demo: 1, mcp: 1, x402: 2, a2a: 1 } as const satisfies Record<string, Tier>);

/** Spec "x402 payment": 100000 base units (0.10) of the 6-decimal settlement stablecoin, valid 300 s, buying Tier 2. */
export const PAYMENT = Object.freeze({
  x402Version: VERSIONS.x402,
  /** x402 v1's request header for the payment payload (v2 clients send PAYMENT-SIGNATURE). */
  header: 'X-PAYMENT',
  scheme: 'exact',
  amountBaseUnits: '100000',
  assetDecimals: 6,
  maxTimeoutSeconds: 300,
  /** How far a payer's clock may run ahead when it signs validBefore as its now + maxTimeoutSeconds. */
  clockSkewSeconds: 30,
  tierGranted: CHANNEL_TIERS.x402,
});

/** Bounds every input is held to (docs/operations.md "Answers a client must handle"). */
export const INPUT_LIMITS = Object.freeze({
  /** Deepest nesting any input may have; a TradeRequest is depth 1. */
  maxJsonDepth: 32,
  /** A 422's `input` echoes at most this many characters of the offending value's JSON. */
  maxEchoChars: 200,
  /**
   * Largest token quantity (`amount`, `|delta|`) the service takes: 10^30 units at up to
   * 36 decimals is 10^66 base units, inside uint256 (about 1.16 x 10^77), so every
   * accepted quantity converts to an exact on-chain amount.
   */
  maxTokenUnits: 1e30,
  audit: Object.freeze({ minLimit: 1, maxLimit: 1000, defaultLimit: 100 }),
});

export interface TierFact {
  tier: Tier;
  /** Service-token holdings needed on REST (Tier 1 also takes wallets with none). */
  minTokens: number;
  maxTradeUsd: number;
  advisoryFloorUsd: number;
  dailyLossLimitUsd: number;
  /** Evaluations per wallet per window, shared by every evaluating channel. */
  walletWindowLimit: number;
  windowSeconds: number;
}

/** The tier table as configured: ceilings are the spec's, windows come from the environment. */
export function tierFacts(config: { readonly rateLimits: { walletPerTier: Readonly<Record<Tier, number>>; windowMs: number } }): TierFact[] {
  return ([1, 2, 3] as const).map((tier) => ({
    tier,
    minTokens: minTokensFor(tier),
    maxTradeUsd: TIER_POLICIES[tier].maxTradeUsd,
    advisoryFloorUsd: TIER_POLICIES[tier].advisoryFloorUsd,
    dailyLossLimitUsd: TIER_POLICIES[tier].dailyLossLimitUsd,
    walletWindowLimit: config.rateLimits.walletPerTier[tier],
    windowSeconds: config.rateLimits.windowMs / 1000,
  }));
}

/** "Tier 2 (max notional 25,000 USD)": how descriptions name a tier. */
export function tierLabel(tier: Tier): string {
  return `Tier ${tier} (max notional ${formatNumber(TIER_POLICIES[tier].maxTradeUsd)} USD)`;
}
