// The A2A agent card (protocol 0.3.0): one skill per capability, the bearer JWT and x402 as alternative schemes.
import type { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { CHANNEL_TIERS, PATHS, PAYMENT, SERVICE, VERSIONS, tierLabel } from '../catalogue/published-facts.js';
import { BEARER_SCHEME } from './bearer-scheme.js';

/**
 * A2A 0.3's AgentCard. The SDK's compat/v0_3 layer declares it without exporting its name, so it
 * is taken from the handler that returns one; the card below must match it or the build fails.
 */
export type AgentCardV03 = Awaited<ReturnType<LegacyRestTransportHandler['getAuthenticatedExtendedAgentCard']>>;
type AgentSkill = AgentCardV03['skills'][number];

const JSON_ONLY = ['application/json'];
const SAMPLE_TRADE = '{"wallet":"0x1111111111111111111111111111111111111111","asset":"TSLA","contract_address":"<from /api/v1/assets>","side":"buy","amount":2}';

/** Every skill is a plain HTTP+JSON call on the REST API at the card's `url`; the MCP tool names the same capability. */
const SKILLS: readonly AgentSkill[] = [
  {
    id: 'evaluate-trade',
    name: 'Evaluate a trade',
    description:
      'Allow, warn or deny a proposed trade with reasons, a 0-100 risk score, the USD price and its source, and the hash of the ' +
      `audit record written before the answer. POST ${PATHS.analyzeFree} (public, ${tierLabel(CHANNEL_TIERS.free)}), ` +
      `POST ${PATHS.analyzeTrade} (bearer JWT: the tier of the wallet's holdings) or POST ${PATHS.x402Analyze} ` +
      `(x402: ${tierLabel(PAYMENT.tierGranted)} per payment); MCP tools evaluate_trade and evaluate_trade_paid. ` +
      'A body with an `error` key means no verdict: do not trade.',
    tags: ['risk', 'pre-trade', 'guardrail', 'trading', 'audit'],
    examples: [`POST ${PATHS.analyzeFree} ${SAMPLE_TRADE}`, 'May wallet 0x1111…1111 buy 2 TSLA at the registry address?'],
  },
  {
    id: 'token-safety',
    name: 'Check token safety',
    description:
      `Heuristic honeypot and ownership check of an ERC-20 contract (bytecode, owner, a simulated sell): POST ${PATHS.tokenSafety} ` +
      'or MCP check_token_safety. A `danger` result denies every evaluation of the contract for 24 hours. Public, limited per IP.',
    tags: ['token', 'honeypot', 'contract-safety'],
    examples: [`POST ${PATHS.tokenSafety} {"contract_address":"0x…"}`, 'Is this token contract a honeypot?'],
  },
  {
    id: 'simulate-balance',
    name: 'Simulate a balance change',
    description:
      `A holder's token balance before and after a signed change, read with an eth_call state override (no transaction is sent): ` +
      `POST ${PATHS.simulateBalance} or MCP simulate_balance. Public.`,
    tags: ['balance', 'simulation', 'read-only'],
    examples: [`POST ${PATHS.simulateBalance} {"token_address":"0x…","holder":"0x…","delta":-5}`],
  },
  {
    id: 'asset-registry',
    name: 'List the asset registry',
    description:
      `The official registry: each symbol with its canonical contract address, decimals and whether it is native: GET ${PATHS.assets} ` +
      'or MCP get_supported_assets. Resolve symbols here before evaluating; an address that differs is denied as a fake token.',
    tags: ['registry', 'assets', 'tokens'],
    examples: [`GET ${PATHS.assets}`, 'What is the canonical contract address of NVDA?'],
  },
  {
    id: 'audit-verification',
    name: 'Verify the audit trail',
    description:
      `Re-hash the stored decision records and check their hash-chain links: GET ${PATHS.auditVerify} (global) or ` +
      `${PATHS.auditVerify}/{wallet}, MCP verify_audit_trail; listings at ${PATHS.auditGlobal}. Public, limited per IP.`,
    tags: ['audit', 'sha-256', 'hash-chain', 'verification'],
    examples: [`GET ${PATHS.auditVerify}?limit=100`, 'Has any decision record of wallet 0x1111…1111 been tampered with?'],
  },
];

export function agentCard(baseUrl: string): AgentCardV03 {
  return {
    protocolVersion: VERSIONS.agentCardProtocol,
    preferredTransport: 'HTTP+JSON',
    name: SERVICE.name,
    description: `${SERVICE.description} Each skill is a JSON call on the REST API at \`url\`; there is no A2A task or message endpoint.`,
    url: baseUrl,
    version: VERSIONS.service,
    provider: { organization: SERVICE.name, url: baseUrl },
    documentationUrl: `${baseUrl}${PATHS.skill}`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: JSON_ONLY,
    defaultOutputModes: JSON_ONLY,
    skills: [...SKILLS],
    securitySchemes: securitySchemes(baseUrl),
    // Alternatives (either one), for the protected REST operations; the public ones need neither.
    security: [{ bearer: [] }, { x402: [] }],
    supportsAuthenticatedExtendedCard: false,
  };
}

function securitySchemes(baseUrl: string): NonNullable<AgentCardV03['securitySchemes']> {
  return {
    bearer: {
      ...BEARER_SCHEME,
      description: `${BEARER_SCHEME.description} It grants the tier of the wallet's service-token holdings on ${PATHS.analyzeTrade} and ${PATHS.config}.`,
    },
    x402: {
      type: 'apiKey',
      in: 'header',
      name: PAYMENT.header,
      description:
        `An x402 v${PAYMENT.x402Version} payment, not an API key: A2A 0.3 has no x402 scheme type, so it is declared as a header ` +
        `scheme named after the payment header. POST ${PATHS.x402Analyze} without it answers 402 with the terms; send the base64 ` +
        `payment payload in ${PAYMENT.header} to buy one evaluation at ${tierLabel(PAYMENT.tierGranted)}. Terms: ` +
        `${baseUrl}${PATHS.x402Manifest}.`,
    },
  };
}
