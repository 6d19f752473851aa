// Public documents: cards, manifests, the methodology, guides, crawler files and the API reference, each rendered once, at start-up or on first request.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PATHS } from '../../catalogue/published-facts.js';
import type { Config } from '../../config.js';
import { agentCard } from '../documents/agent-card.js';
import { aiCatalog } from '../documents/ai-catalog.js';
import { docsAssets, docsPage } from '../documents/docs-page.js';
import { glamaMetadata } from '../documents/glama.js';
import { KNOWN_ISSUES_FILE, knownIssues } from '../documents/known-issues.js';
import { llmsTxt } from '../documents/llms-txt.js';
import { renderMethodology } from '../documents/methodology.js';
import { methodologyHtml } from '../documents/methodology-html.js';
import { openApiDocument } from '../documents/openapi.js';
import { robotsTxt } from '../documents/robots-txt.js';
import { serverCard } from '../documents/server-card.js';
import { sitemapXml } from '../documents/sitemap.js';
import { skillMd } from '../documents/skill-md.js';
import { x402Manifest, type PaidOffer } from '../documents/x402-manifest.js';
import type { PlainResponse, Route } from '../../http/types.js';

const CONTENT_TYPES = {
  json: 'application/json',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xml: 'application/xml',
  html: 'text/html; charset=utf-8',
  javascript: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
} as const;

// Public and credential-free, so any origin may read them (browser agents, catalog crawlers).
const OPEN = { 'access-control-allow-origin': '*' };
// The page loads nothing: no script, no remote style, only its own inline CSS.
const PAGE = { ...OPEN, 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" };
// The API reference loads its scripts, styles and the OpenAPI document from this service and nothing else;
// Swagger UI sets inline styles and draws its icons as data: images.
const DOCS_PAGE = {
  ...OPEN,
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
};

/**
 * `baseUrl` is read on the first request of each document, once the edge listens (PORT=0 picks the port
 * then), and the rendering is kept; `paid` is the paid channel as built at start: its terms, or why it is off.
 */
export function documentRoutes(config: Readonly<Config>, baseUrl: () => string, paid: PaidOffer): Route[] {
  // Rendered now: a broken known-issues file stops the start instead of failing a request.
  const methodology = renderMethodology(config);
  const methodologyText = document('markdown', methodology);
  // Its HTML is made on first request: turning the markdown into HTML is most of what the documents cost a start.
  const methodologyPage = once(() => document('html', methodologyHtml(methodology), PAGE));
  const issuesFile = fileURLToPath(KNOWN_ISSUES_FILE);
  const issues = document('json', jsonText(knownIssues(readFileSync(issuesFile, 'utf8'), issuesFile)));
  const docs = document('html', docsPage(), DOCS_PAGE);
  const served: [string | readonly string[], () => PlainResponse][] = [
    [PATHS.mcpServerCard, once(() => document('json', jsonText(serverCard(baseUrl()))))],
    [PATHS.agentCard, once(() => document('json', jsonText(agentCard(baseUrl()))))],
    [PATHS.x402Manifest, once(() => document('json', jsonText(x402Manifest(baseUrl(), paid))))],
    [PATHS.glama, once(() => document('json', jsonText(glamaMetadata(baseUrl()))))],
    [PATHS.aiCatalog, once(() => document('json', jsonText(aiCatalog(baseUrl()))))],
    [PATHS.knownIssues, () => issues],
    [PATHS.methodology, () => methodologyText],
    [PATHS.methodologyHtml, methodologyPage],
    [PATHS.llmsTxt, once(() => document('text', llmsTxt(baseUrl())))],
    [PATHS.skill, once(() => document('markdown', skillMd(config, baseUrl())))],
    [PATHS.robots, once(() => document('text', robotsTxt(baseUrl())))],
    [PATHS.sitemap, once(() => document('xml', sitemapXml(baseUrl())))],
    [PATHS.openapi, once(() => document('json', jsonText(openApiDocument(baseUrl()))))],
    [PATHS.docs, () => docs],
    ...docsAssets().map(({ path, kind, text }): [string, () => PlainResponse] => {
      const asset = document(kind, text);
      return [path, () => asset];
    }),
  ];
  // Aliases share one rendering, so they answer the same bytes.
  return served.flatMap(([paths, respond]) =>
    [paths].flat().map((pattern): Route => ({ method: 'get', pattern, handler: () => respond() })),
  );
}

function once(render: () => PlainResponse): () => PlainResponse {
  let rendered: PlainResponse | null = null;
  return () => (rendered ??= render());
}

function document(kind: keyof typeof CONTENT_TYPES, text: string | Buffer, headers: Record<string, string> = OPEN): PlainResponse {
  return { status: 200, headers, raw: { contentType: CONTENT_TYPES[kind], text: Buffer.from(text) } };
}

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
