// The public documents with a title and a line each: what llms.txt, the sitemap and the directory metadata link to.
import { PATHS } from '../../catalogue/published-facts.js';

export interface PublicDocument {
  /** The key directory metadata lists the link under. */
  key: string;
  path: string;
  title: string;
  summary: string;
  /** The llms.txt section it is listed in. */
  section: 'Discovery' | 'Docs' | 'Operations' | 'Optional';
}

/** One entry per document; aliases (the card's other paths) are left out, so each is listed once. */
export const PUBLIC_DOCUMENTS: readonly PublicDocument[] = [
  { key: 'skill', path: PATHS.skill, title: 'Agent guide', summary: 'how an agent resolves assets, signs in or pays, and handles errors and retries', section: 'Docs' },
  { key: 'methodology', path: PATHS.methodologyHtml, title: 'Risk methodology', summary: 'score, bands, tiers, reason and error codes, audit records (HTML)', section: 'Docs' },
  { key: 'methodology_markdown', path: PATHS.methodology, title: 'Risk methodology (Markdown)', summary: 'the same text as Markdown', section: 'Docs' },
  { key: 'openapi', path: PATHS.openapi, title: 'OpenAPI description', summary: 'every REST operation with its schemas, errors and security (OpenAPI 3.1)', section: 'Docs' },
  { key: 'api_reference', path: PATHS.docs, title: 'API reference', summary: 'the OpenAPI description as an interactive page', section: 'Docs' },
  { key: 'agent_card', path: PATHS.agentCard[0], title: 'A2A agent card', summary: 'A2A 0.3.0 card (with 1.0 interfaces): HTTP+JSON preferred, JSON-RPC beside it, its skills and the two security schemes', section: 'Discovery' },
  { key: 'mcp_server_card', path: PATHS.mcpServerCard[0], title: 'MCP server card', summary: 'the MCP endpoint, its transport and every tool with its schemas', section: 'Discovery' },
  { key: 'x402', path: PATHS.x402Manifest, title: 'x402 manifest', summary: 'the payment terms of the paid endpoint and tool', section: 'Discovery' },
  { key: 'glama', path: PATHS.glama, title: 'Directory metadata (Glama)', summary: 'name, MCP endpoint, tools, license, links', section: 'Discovery' },
  { key: 'ai_catalog', path: PATHS.aiCatalog, title: 'AI catalog', summary: 'the MCP server and the A2A agent as catalog entries', section: 'Discovery' },
  { key: 'audit_key', path: PATHS.auditKey, title: 'Audit signing key', summary: 'the Ed25519 key that signs the audit log\'s checkpoints', section: 'Discovery' },
  { key: 'permit_signer', path: PATHS.permitSigner, title: 'Trade permit signer', summary: 'the address that signs trade permits, the on-chain guard and the EIP-712 domain', section: 'Discovery' },
  { key: 'known_issues', path: PATHS.knownIssues, title: 'Known issues', summary: 'open problems, what they affect and how to work around them', section: 'Discovery' },
  { key: 'status_page', path: PATHS.statusPage, title: 'Status page', summary: 'every component, why it is not ok, requests in the last minute; refreshes itself', section: 'Operations' },
  { key: 'status', path: PATHS.status, title: 'Status (JSON)', summary: 'the same, machine-readable', section: 'Operations' },
  { key: 'latency_page', path: PATHS.latencyPage, title: 'Latency', summary: 'p50 to p99.9 per route over 1 minute, 5 minutes and 1 hour, charted', section: 'Operations' },
  { key: 'latency', path: PATHS.latency, title: 'Latency (JSON)', summary: 'the same percentiles and counts', section: 'Operations' },
  { key: 'metrics', path: PATHS.metrics, title: 'Prometheus metrics', summary: 'requests, latency, decisions, audit, scoring, payments', section: 'Operations' },
  { key: 'service', path: PATHS.root, title: 'Service information', summary: 'name, version, chain and links (JSON)', section: 'Optional' },
  { key: 'llms_txt', path: PATHS.llmsTxt, title: 'llms.txt', summary: 'this index', section: 'Optional' },
  { key: 'robots', path: PATHS.robots, title: 'robots.txt', summary: 'crawl rules', section: 'Optional' },
  { key: 'sitemap', path: PATHS.sitemap, title: 'Sitemap', summary: 'every public document', section: 'Optional' },
];

/** `{key: absolute URL}` for every document, as directory metadata lists its links. */
export function documentLinks(baseUrl: string): Record<string, string> {
  return Object.fromEntries(PUBLIC_DOCUMENTS.map((document) => [document.key, `${baseUrl}${document.path}`]));
}
