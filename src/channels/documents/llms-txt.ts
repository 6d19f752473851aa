// /llms.txt in the llmstxt.org form: title, summary, the calls in brief, then sections of links.
import { CHANNEL_TIERS, PATHS, PAYMENT, SERVICE, VERSIONS, tierLabel } from '../../catalogue/published-facts.js';
import { PUBLIC_DOCUMENTS, type PublicDocument } from './public-documents.js';

/** GET endpoints worth reading directly; cheap and safe to crawl (audit verification is neither, so it is only named). */
const READABLE_ENDPOINTS = [
  { path: PATHS.assets, title: 'Asset registry', summary: 'every symbol with its canonical contract address; resolve symbols here first' },
  { path: PATHS.health, title: 'Health', summary: '200 when the process and its store are up' },
];

const SECTIONS: readonly PublicDocument['section'][] = ['Docs', 'Discovery', 'Operations'];

export function llmsTxt(baseUrl: string): string {
  const link = (entry: { path: string; title: string; summary: string }) => `- [${entry.title}](${baseUrl}${entry.path}): ${entry.summary}`;
  const listed = PUBLIC_DOCUMENTS.filter((document) => document.path !== PATHS.llmsTxt);
  const section = (name: PublicDocument['section']) => [`## ${name}`, '', ...listed.filter((d) => d.section === name).map(link), ''];
  return [
    `# ${SERVICE.name}`,
    '',
    `> ${SERVICE.description}`,
    '',
    ...calls(baseUrl),
    ...SECTIONS.flatMap(section),
    '## API',
    '',
    ...READABLE_ENDPOINTS.map(link),
    '',
    ...section('Optional'),
  ].join('\n');
}

function calls(baseUrl: string): string[] {
  return [
    `${SERVICE.chain.name} (chain ID ${SERVICE.chain.id}, \`${SERVICE.chain.caip2}\`). Bodies are JSON. An answer with an \`error\` key`,
    'means no result was produced: for a trade, do not trade. The agent guide below says how to sign in, pay and retry.',
    '',
    `- \`POST ${PATHS.analyzeFree}\`: evaluate a trade at ${tierLabel(CHANNEL_TIERS.free)}, public`,
    `- \`POST ${PATHS.analyzeTrade}\`: evaluate at the tier of the signed-in wallet's holdings (bearer JWT)`,
    `- \`POST ${PATHS.x402Analyze}\`: evaluate at ${tierLabel(PAYMENT.tierGranted)}, paid per call with x402`,
    `- \`POST ${PATHS.tokenSafety}\`, \`POST ${PATHS.simulateBalance}\`: token safety check, balance simulation`,
    `- \`GET ${PATHS.auditGlobal}\`, \`GET ${PATHS.auditVerify}\`: the audit log and its verification`,
    `- MCP: \`${baseUrl}${PATHS.mcp}\` (streamable HTTP, protocol ${VERSIONS.mcpProtocol}, no authentication)`,
    `- A2A: \`${baseUrl}${PATHS.a2aRest}\` (HTTP+JSON, A2A 1.0, \`POST ${PATHS.a2aRest}/message:send\`) and \`${baseUrl}${PATHS.a2a}\` (JSON-RPC, A2A 1.0 and 0.3); no authentication; skills in the agent card`,
    '',
  ];
}
