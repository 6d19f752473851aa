// Every discovery document over real sockets, offline: status, content type, parse, required fields, and a crawl of their links.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { PATHS, PAYMENT, SERVICE, VERSIONS } from '../../../../src/catalogue/published-facts.js';
import { KNOWN_ISSUES_FILE } from '../../../../src/channels/documents/known-issues.js';
import { methodologyHtml } from '../../../../src/channels/documents/methodology-html.js';
import { PUBLIC_DOCUMENTS } from '../../../../src/channels/documents/public-documents.js';
import { TOOL_DEFINITIONS } from '../../../../src/schemas/mcp-tools.js';
import { REASON_CODES } from '../../../../src/risk/reason-codes.js';
import { getJson, startTestService, type HttpResult, type TestService } from '../../../support/service.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// A public address unlike the listening one: every absolute URL must come from PUBLIC_BASE_URL, and the crawl maps it back.
const PUBLIC_BASE = 'http://guardrail.test:8443';
const JSON_TYPE = 'application/json';

let running: TestService;

before(async () => {
  running = await startTestService({ PUBLIC_BASE_URL: PUBLIC_BASE });
});
after(() => running.stop());

async function fetchDocument(path: string, contentType: string): Promise<HttpResult> {
  const response = await getJson(`${running.base}${path}`);
  assert.equal(response.status, 200, path);
  assert.equal(response.headers.get('content-type'), contentType, path);
  return response;
}

const toolNames = TOOL_DEFINITIONS.map((tool) => tool.name);

describe('A2A agent card', () => {
  it('answers the same bytes at all three paths', async () => {
    const bodies = await Promise.all(PATHS.agentCard.map((path) => fetchDocument(path, JSON_TYPE)));
    assert.deepEqual(PATHS.agentCard, ['/.well-known/agent-card.json', '/.well-known/agents.json', '/agents.json']);
    for (const body of bodies.slice(1)) assert.equal(body.text, bodies[0]!.text);
  });

  it('carries protocol 0.3.0 preferring HTTP+JSON, JSON-RPC as the additional interface, no streaming, JSON modes, the skills served', async () => {
    const card = (await fetchDocument(PATHS.agentCard[0], JSON_TYPE)).json;
    const url = `${PUBLIC_BASE}${PATHS.a2a}`;
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.preferredTransport, 'HTTP+JSON');
    assert.deepEqual(card.additionalInterfaces, [{ url: PUBLIC_BASE, transport: 'HTTP+JSON' }, { url, transport: 'JSONRPC' }]);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${PUBLIC_BASE}${PATHS.a2aRest}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ]);
    assert.equal(card.name, SERVICE.name);
    assert.equal(card.description.startsWith(SERVICE.description), true);
    assert.equal(card.url, PUBLIC_BASE);
    assert.equal(card.version, VERSIONS.service);
    assert.deepEqual(card.provider, { organization: SERVICE.name, url: PUBLIC_BASE });
    assert.equal(card.documentationUrl, `${PUBLIC_BASE}${PATHS.skill}`);
    assert.deepEqual(card.capabilities, { streaming: false, pushNotifications: false, stateTransitionHistory: false });
    assert.deepEqual(card.defaultInputModes, ['application/json']);
    assert.deepEqual(card.defaultOutputModes, ['application/json']);
    assert.deepEqual(card.skills.map((skill: { id: string }) => skill.id), ['evaluate-trade', 'token-safety', 'asset-registry']);
    for (const skill of card.skills) {
      assert.ok(skill.name && skill.description && skill.tags.length > 0 && skill.examples.length > 0, skill.id);
    }
  });

  it('offers the bearer JWT or an x402 payment, declared as a header scheme named after the payment header', async () => {
    const card = (await fetchDocument(PATHS.agentCard[0], JSON_TYPE)).json;
    assert.deepEqual(card.security, [{ bearer: [] }, { x402: [] }]);
    const { bearer, x402 } = card.securitySchemes;
    assert.equal(bearer.type, 'http');
    assert.equal(bearer.scheme, 'bearer');
    assert.equal(bearer.bearerFormat, 'JWT');
    assert.equal(x402.type, 'apiKey');
    assert.equal(x402.in, 'header');
    assert.equal(x402.name, 'X-PAYMENT');
    assert.match(x402.description, /A2A 0\.3 has no x402 scheme type, so it is declared as a header scheme named after the payment header/);
  });
});

describe('x402 manifest', () => {
  it('offline: valid JSON that says the paid channel is off and why, and names no asset', async () => {
    const response = await fetchDocument(PATHS.x402Manifest, JSON_TYPE);
    const manifest = response.json;
    assert.equal(manifest.x402Version, 1);
    assert.equal(manifest.available, false);
    assert.match(manifest.unavailableReason, /^the paid channel is off: .+/);
    assert.deepEqual(
      manifest.resources.map((entry: Record<string, unknown>) => [entry.type, entry.resource ?? entry.tool, entry.tierGranted, entry.accepts]),
      [['http', `${PUBLIC_BASE}${PATHS.x402Analyze}`, 2, []], ['mcp-tool', 'evaluate_trade_paid', 2, []]],
    );
    assert.doesNotMatch(response.text, /"asset"|"payTo"/);
  });
});

describe('directory metadata', () => {
  const license = JSON.parse(readFileSync(new URL('../../../../../package.json', import.meta.url), 'utf8')).license;

  it('glama.json: name, description, the MCP endpoint over streamable HTTP, the tools, provider, license, links', async () => {
    const glama = (await fetchDocument(PATHS.glama, JSON_TYPE)).json;
    assert.equal(glama.name, SERVICE.name);
    assert.equal(glama.description, SERVICE.description);
    assert.deepEqual(glama.mcp, {
      url: `${PUBLIC_BASE}${PATHS.mcp}`, transport: 'streamable-http', protocolVersion: VERSIONS.mcpProtocol, authentication: { required: false },
    });
    assert.deepEqual(glama.tools.map((tool: { name: string }) => tool.name), toolNames);
    assert.deepEqual(glama.provider, { name: SERVICE.name, url: PUBLIC_BASE });
    assert.equal(glama.license, license);
    assert.equal(glama.links.agent_card, `${PUBLIC_BASE}${PATHS.agentCard[0]}`);
    assert.equal(glama.links.llms_txt, `${PUBLIC_BASE}${PATHS.llmsTxt}`);
  });

  it('ai-catalog.json: the MCP server and the A2A agent as entries, with the tools, provider, license and links', async () => {
    const catalog = (await fetchDocument(PATHS.aiCatalog, JSON_TYPE)).json;
    assert.equal(catalog.specVersion, '1.0');
    assert.equal(catalog.name, SERVICE.name);
    assert.equal(catalog.license, license);
    assert.deepEqual(catalog.provider, { name: SERVICE.name, url: PUBLIC_BASE });
    const [mcp, a2a] = catalog.entries;
    assert.equal(mcp.type, 'application/mcp-server-card+json');
    assert.equal(mcp.url, `${PUBLIC_BASE}${PATHS.mcpServerCard[0]}`);
    assert.equal(mcp.endpoint.transport, 'streamable-http');
    assert.equal(mcp.endpoint.url, `${PUBLIC_BASE}${PATHS.mcp}`);
    assert.deepEqual(mcp.capabilities, toolNames);
    assert.deepEqual(mcp.tools.map((tool: { name: string }) => tool.name), toolNames);
    assert.equal(a2a.type, 'application/a2a-agent-card+json');
    assert.equal(a2a.url, `${PUBLIC_BASE}${PATHS.agentCard[0]}`);
    assert.equal(catalog.links.methodology, `${PUBLIC_BASE}${PATHS.methodologyHtml}`);
  });
});

describe('versions', () => {
  // package.json's version is the service's; the spec's 1.0.3 is the published interface's (ARCHITECTURE.md "Versions").
  const service = JSON.parse(readFileSync(new URL('../../../../../package.json', import.meta.url), 'utf8')).version;

  it('every document that describes the service gives its version, every description of the interface the API version', async () => {
    assert.equal(VERSIONS.service, service);
    assert.equal(VERSIONS.api, '1.0.3');
    const root = (await fetchDocument(PATHS.root, JSON_TYPE)).json;
    assert.deepEqual([root.version, root.api_version], [service, VERSIONS.api]);
    assert.equal((await fetchDocument(PATHS.status, JSON_TYPE)).json.version, service);
    assert.equal((await fetchDocument(PATHS.agentCard[0], JSON_TYPE)).json.version, service);
    const glama = (await fetchDocument(PATHS.glama, JSON_TYPE)).json;
    assert.deepEqual([glama.version, glama.api_version], [service, VERSIONS.api]);
    const catalog = (await fetchDocument(PATHS.aiCatalog, JSON_TYPE)).json;
    assert.deepEqual(catalog.entries.map((entry: { version: string }) => entry.version), [service, service]);
    assert.equal((await fetchDocument(PATHS.mcpServerCard[0], JSON_TYPE)).json.version, VERSIONS.api);
    assert.equal((await fetchDocument(PATHS.openapi, JSON_TYPE)).json.info.version, VERSIONS.api);
  });

  it('the MCP server introduces itself with the service version', async () => {
    const client = new Client({ name: 'guardrail-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${running.base}${PATHS.mcp}`));
    await client.connect(transport);
    try {
      assert.deepEqual(client.getServerVersion(), { name: SERVICE.name, version: service });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });
});

describe('methodology page', () => {
  it('is the Markdown methodology rendered as a whole page with its title and tables', async () => {
    const markdown = (await fetchDocument(PATHS.methodology, 'text/markdown; charset=utf-8')).text;
    const page = await fetchDocument(PATHS.methodologyHtml, 'text/html; charset=utf-8');
    assert.equal(page.text, methodologyHtml(markdown));
    assert.match(page.text, /^<!doctype html>\n<html lang="en">/);
    assert.match(page.text, /<title>Risk methodology · trade-guardrail<\/title>/);
    assert.match(page.text, /<style>[^<]+<\/style>/);
    assert.match(page.text, /<h2>Reason codes<\/h2>/);
    assert.ok((page.text.match(/<table>/g) ?? []).length >= 3, 'the tier, reason and error tables');
    for (const code of Object.keys(REASON_CODES)) assert.ok(page.text.includes(`<td><code>${code}</code></td>`), code);
    assert.match(page.text, /<\/main>\n<\/body>\n<\/html>\n$/);
    assert.equal(page.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'");
  });
});

describe('for agents and crawlers', () => {
  it('llms.txt: an H1 title, a blockquote summary, then sections of links', async () => {
    const text = (await fetchDocument(PATHS.llmsTxt, 'text/plain; charset=utf-8')).text;
    const lines = text.split('\n');
    assert.equal(lines[0], `# ${SERVICE.name}`);
    assert.equal(lines[2], `> ${SERVICE.description}`);
    assert.deepEqual(lines.filter((line) => line.startsWith('## ')), ['## Docs', '## Discovery', '## Operations', '## API', '## Optional']);
    assert.equal(lines.filter((line) => line.startsWith('# ')).length, 1);
    for (const document of PUBLIC_DOCUMENTS.filter((d) => d.path !== PATHS.llmsTxt)) {
      assert.ok(text.includes(`](${PUBLIC_BASE}${document.path}): `), document.path);
    }
    for (const path of [PATHS.analyzeFree, PATHS.analyzeTrade, PATHS.x402Analyze, PATHS.mcp]) assert.ok(text.includes(path), path);
  });

  it('skill.md: resolve symbols, sign in or pay, error is a hard stop, Retry-After, the same request_id', async () => {
    const text = (await fetchDocument(PATHS.skill, 'text/markdown; charset=utf-8')).text;
    assert.match(text, /^---\nname: trade-guardrail\ndescription: .+\n---\n/);
    for (const expected of [
      `GET ${PATHS.assets}`, `GET ${PATHS.authNonce}?address=`, 'EIP-4361', `POST ${PATHS.authWallet}`, 'valid 3600 s',
      `POST ${PATHS.x402Analyze}`, `\`${PAYMENT.header}\``, `${PAYMENT.amountBaseUnits} base units`,
      '**An `error` key is a hard stop**', '`Retry-After`', 'retry with the **same**', '`idempotency_conflict`',
    ]) {
      assert.ok(text.includes(expected), expected);
    }
  });

  it('robots.txt allows everything and names the sitemap', async () => {
    const text = (await fetchDocument(PATHS.robots, 'text/plain; charset=utf-8')).text;
    assert.equal(text, `User-agent: *\nAllow: /\n\nSitemap: ${PUBLIC_BASE}${PATHS.sitemap}\n`);
  });

  it('sitemap.xml is well-formed and lists every public document at its absolute URL', async () => {
    const text = (await fetchDocument(PATHS.sitemap, 'application/xml')).text;
    assert.equal(XMLValidator.validate(text), true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(text);
    assert.equal(parsed.urlset['@_xmlns'], 'http://www.sitemaps.org/schemas/sitemap/0.9');
    const locations = parsed.urlset.url.map((entry: { loc: string }) => entry.loc);
    assert.deepEqual(locations, PUBLIC_DOCUMENTS.map((document) => `${PUBLIC_BASE}${document.path}`));
  });

  it('known-issues.json is the repository file, with the malformed-head issue', async () => {
    const served = (await fetchDocument(PATHS.knownIssues, JSON_TYPE)).json;
    assert.deepEqual(served, JSON.parse(readFileSync(KNOWN_ISSUES_FILE, 'utf8')));
    for (const issue of served.issues) {
      assert.ok(issue.id && issue.title && issue.status && issue.affected_paths.length > 0 && issue.workaround, issue.id);
    }
    const head = served.issues.find((issue: { id: string }) => issue.id === 'malformed-http-head-unanswered');
    assert.match(head.description, /bare LF.*NUL.*obs-fold.*space in a header name.*more than 49 headers.*10 s/s);
  });
});

describe('without PUBLIC_BASE_URL', () => {
  it('the documents name the port the edge listens on, not the PORT=0 that asked for one', async () => {
    const unnamed = await startTestService();
    try {
      const card = (await getJson(`${unnamed.base}${PATHS.agentCard[0]}`)).json;
      assert.equal(card.url, unnamed.base);
      assert.equal(card.supportedInterfaces[1].url, `${unnamed.base}${PATHS.a2a}`);
      const robots = (await getJson(`${unnamed.base}${PATHS.robots}`)).text;
      assert.ok(robots.includes(`Sitemap: ${unnamed.base}${PATHS.sitemap}`), robots);
    } finally {
      await unnamed.stop();
    }
  });
});

describe('crawl', () => {
  it('every URL that /, /llms.txt, /sitemap.xml and the Markdown they reach name is on this service and answers 200', async () => {
    const seen = new Set<string>();
    const root = (await getJson(`${running.base}/`)).json as { links: Record<string, string> };
    const fromRoot = Object.values(root.links).filter((path) => !path.startsWith('/api/v1/analyze') && !path.startsWith('/api/v1/demo'));
    const queue = [`${PUBLIC_BASE}${PATHS.llmsTxt}`, `${PUBLIC_BASE}${PATHS.sitemap}`, ...fromRoot.map((path) => `${PUBLIC_BASE}${path}`)];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      assert.equal(new URL(url).origin, PUBLIC_BASE, `${url} is not on this service`);
      const { pathname, search } = new URL(url);
      const response = await getJson(`${running.base}${pathname}${search}`);
      assert.equal(response.status, 200, url);
      if (/^text\/(plain|markdown)|xml/.test(response.headers.get('content-type') ?? '')) queue.push(...linksIn(response.text));
    }
    for (const document of PUBLIC_DOCUMENTS) {
      assert.ok(seen.has(`${PUBLIC_BASE}${document.path}`), document.path);
      assert.ok(Object.values(root.links).includes(document.path), `/ links ${document.path}`);
    }
    assert.ok(seen.has(`${PUBLIC_BASE}${PATHS.assets}`));
  });
});

/** Markdown link targets and sitemap locations. */
function linksIn(text: string): string[] {
  const markdown = [...text.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((match) => match[1]!);
  const sitemap = [...text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
  return [...markdown, ...sitemap];
}
