// The A2A agent card (protocol 0.3.0, with 1.0's interfaces): the served endpoint and its skills, the bearer JWT and x402 as REST's schemes.
import type { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { CHANNEL_TIERS, PATHS, PAYMENT, SERVICE, VERSIONS, tierLabel } from '../../catalogue/published-facts.js';
import { A2A_SKILLS } from '../../catalogue/a2a-skills.js';
import { BEARER_SCHEME } from './bearer-scheme.js';

/**
 * A2A 0.3's AgentCard. The SDK's compat/v0_3 layer declares it without exporting its name, so it
 * is taken from the handler that returns one; the card below must match it or the build fails.
 */
export type AgentCardV03 = Awaited<ReturnType<LegacyRestTransportHandler['getAuthenticatedExtendedAgentCard']>>;
type AgentSkill = AgentCardV03['skills'][number];
/** A2A 1.0's AgentInterface as it appears in JSON. */
interface A2AInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant: string;
}

const JSON_ONLY = ['application/json'];
const SAMPLE_TRADE = '{"wallet":"0x1111111111111111111111111111111111111111","asset":"TSLA","contract_address":"<from the asset-registry skill>","side":"buy","amount":2}';

/** Each skill is a SendMessage at any of the card's interfaces whose one data part is the skill's input; the answer is a completed task with one data artifact. */
const SKILLS: readonly AgentSkill[] = [
  {
    id: A2A_SKILLS.evaluate,
    name: 'Evaluate a trade',
    description:
      'Allow, warn or deny a proposed trade with reasons, a 0-100 risk score, the USD price and its source, and the hash of the ' +
      `audit record written before the answer, at ${tierLabel(CHANNEL_TIERS.a2a)}. Send one data part holding a TradeRequest ` +
      `(the body POST ${PATHS.analyzeFree} takes; metadata.skill may be omitted); the task's artifact \`verdict\` is the Verdict. ` +
      'An invalid TradeRequest is refused (HTTP+JSON 400 INVALID_ARGUMENT, JSON-RPC -32602) with the FastAPI-style `detail` in ' +
      'its error info; an evaluation that ' +
      'produced no verdict (a dead chain node, a full per-wallet window) is an error carrying the catalogue `code`: do not trade. ' +
      `The same evaluation: POST ${PATHS.analyzeFree}, POST ${PATHS.analyzeTrade} (bearer JWT), POST ${PATHS.x402Analyze} ` +
      '(x402), MCP evaluate_trade.',
    tags: ['risk', 'pre-trade', 'guardrail', 'trading', 'audit'],
    examples: [SAMPLE_TRADE, 'May wallet 0x1111…1111 buy 2 TSLA at the registry address?'],
  },
  {
    id: A2A_SKILLS.tokenSafety,
    name: 'Check token safety',
    description:
      'Heuristic honeypot and ownership check of an ERC-20 contract (bytecode, owner, a simulated sell). Send metadata.skill ' +
      `"${A2A_SKILLS.tokenSafety}" and one data part {"contract_address": "0x…"}; the artifact \`token-safety\` is the report ` +
      `POST ${PATHS.tokenSafety} answers (MCP check_token_safety). A \`danger\` result denies every evaluation of the contract ` +
      'for 24 hours; an error means no result: do not assume the token is safe.',
    tags: ['token', 'honeypot', 'contract-safety'],
    examples: ['{"contract_address":"0x…"}', 'Is this token contract a honeypot?'],
  },
  {
    id: A2A_SKILLS.assets,
    name: 'List the asset registry',
    description:
      `The official registry: each symbol with its canonical contract address, decimals and whether it is native. Send metadata.skill ` +
      `"${A2A_SKILLS.assets}" (a data part is optional and ignored); the artifact \`assets\` is {"assets": [...]}, as GET ` +
      `${PATHS.assets} and MCP get_supported_assets list them. Resolve symbols here before evaluating; an address that differs is denied as a fake token.`,
    tags: ['registry', 'assets', 'tokens'],
    examples: ['{}', 'What is the canonical contract address of NVDA?'],
  },
];

/**
 * The 0.3.0 card (spec "Versioning": preferred transport HTTP+JSON) with A2A 1.0's
 * `supportedInterfaces` beside it, the form the SDK's own server gives 0.3 clients
 * (`embedV1Interfaces`). `url` is the HTTP+JSON base its routes hang from (`/v1/message:send`);
 * JSON-RPC at /a2a is the additional interface. A 1.0 client reads the interfaces, in order of
 * preference: HTTP+JSON 1.0 first, then JSON-RPC 1.0 and 0.3 (ARCHITECTURE.md "A2A channel").
 */
export function agentCard(baseUrl: string): AgentCardV03 & { supportedInterfaces: A2AInterface[] } {
  const jsonRpc = `${baseUrl}${PATHS.a2a}`;
  return {
    protocolVersion: VERSIONS.agentCardProtocol,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: baseUrl, transport: 'HTTP+JSON' },
      { url: jsonRpc, transport: 'JSONRPC' },
    ],
    supportedInterfaces: [
      { url: `${baseUrl}${PATHS.a2aRest}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    name: SERVICE.name,
    description:
      `${SERVICE.description} A2A over HTTP+JSON (POST ${PATHS.a2aRest}/message:send, A2A-Version 1.0) and JSON-RPC at ` +
      `${PATHS.a2a} (A2A-Version 1.0, or 0.3 without the header): SendMessage only, answered by a completed task with one JSON ` +
      'data artifact; no streaming, no push notifications, no task is kept.',
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
