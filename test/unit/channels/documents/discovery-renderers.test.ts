// The pure document renderers on inputs a running offline service cannot give them: live payment terms, bad files, odd base URLs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { TObject } from '@sinclair/typebox';
import { XMLValidator } from 'fast-xml-parser';
import { PATHS } from '../../../../src/catalogue/published-facts.js';
import { KNOWN_ISSUES_FILE, knownIssues } from '../../../../src/channels/documents/known-issues.js';
import { methodologyHtml } from '../../../../src/channels/documents/methodology-html.js';
import { sitemapXml } from '../../../../src/channels/documents/sitemap.js';
import { x402Manifest } from '../../../../src/channels/documents/x402-manifest.js';
import { TOOL_DEFINITIONS } from '../../../../src/schemas/mcp-tools.js';
import { requirementsV1 } from '../../../../src/evaluation/paid/terms.js';
import { sampleTerms } from '../../../support/payment-terms.js';

const BASE = 'https://guard.example';

const TERMS = sampleTerms(BASE);

describe('x402 manifest', () => {
  it('with live terms: the 402 challenge\'s own requirements for the REST endpoint and the MCP tool, buying Tier 2', () => {
    const manifest = x402Manifest(BASE, { paid: { terms: TERMS }, off: null }) as { resources: Record<string, any>[] } & Record<string, unknown>;
    assert.equal(manifest.x402Version, 1);
    assert.equal(manifest.available, true);
    assert.equal('unavailableReason' in manifest, false);
    const [rest, mcp] = manifest.resources;
    assert.equal(rest!.resource, `${BASE}${PATHS.x402Analyze}`);
    assert.equal(mcp!.endpoint, `${BASE}${PATHS.mcp}`);
    for (const resource of manifest.resources) {
      assert.equal(resource.tierGranted, 2);
      assert.deepEqual(resource.accepts, [requirementsV1(TERMS)]);
      const [accepted] = resource.accepts;
      assert.deepEqual(
        [accepted.network, accepted.asset, accepted.maxAmountRequired, accepted.payTo, accepted.maxTimeoutSeconds, accepted.extra],
        ['eip155:4663', TERMS.asset, '100000', TERMS.payTo, 300, { name: 'USD Coin', version: '2' }],
      );
    }
  });

  it('names a tool that exists and takes the proof argument it names', () => {
    const mcp = (x402Manifest(BASE, { paid: null, off: 'PAY_TO_ADDRESS is not set' }) as { resources: Record<string, any>[] }).resources[1]!;
    const tool = TOOL_DEFINITIONS.find((definition) => definition.name === mcp.tool);
    assert.ok(tool, mcp.tool);
    assert.ok(mcp.proofArgument in (tool.inputSchema as TObject).properties);
  });

  it('without terms: says why, offers nothing', () => {
    const manifest = x402Manifest(BASE, { paid: null, off: 'PAY_TO_ADDRESS is not set' }) as Record<string, any>;
    assert.equal(manifest.available, false);
    assert.equal(manifest.unavailableReason, 'the paid channel is off: PAY_TO_ADDRESS is not set');
    for (const resource of manifest.resources) assert.deepEqual(resource.accepts, []);
  });
});

describe('known issues file', () => {
  const valid = { id: 'an-issue', title: 't', status: 'open', affected_paths: ['*'], description: 'd', workaround: 'w' };

  it('accepts the repository file', () => {
    const text = readFileSync(KNOWN_ISSUES_FILE, 'utf8');
    assert.deepEqual(knownIssues(text, 'docs/known-issues.json'), JSON.parse(text));
  });

  it('stops the start on a file that is not JSON, misses a field, has an unknown one or repeats an id', () => {
    assert.throws(() => knownIssues('{', 'f.json'), /^Error: f\.json: not JSON: /);
    const { workaround: _dropped, ...missing } = valid;
    assert.throws(() => knownIssues(JSON.stringify({ issues: [missing] }), 'f.json'), /^Error: f\.json: issues\.0\.workaround: Field required$/);
    assert.throws(() => knownIssues(JSON.stringify({ issues: [{ ...valid, severity: 'high' }] }), 'f.json'), /issues\.0\.severity: Extra inputs are not permitted/);
    assert.throws(() => knownIssues(JSON.stringify({ issues: [valid, valid] }), 'f.json'), /^Error: f\.json: issue id an-issue is listed twice$/);
  });
});

describe('pages and crawler files', () => {
  it('the methodology page escapes its title and renders pipe tables', () => {
    const page = methodologyHtml('# Risk <&> methodology\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    assert.match(page, /<title>Risk &lt;&amp;&gt; methodology · trade-guardrail<\/title>/);
    assert.match(page, /<table>\n<thead>\n<tr>\n<th>a<\/th>/);
    assert.match(page, /<td>2<\/td>/);
  });

  it('the sitemap stays well-formed whatever the public base URL holds', () => {
    const text = sitemapXml("https://guard.example/a?b=1&c='2'");
    assert.equal(XMLValidator.validate(text), true);
    assert.match(text, /<loc>https:\/\/guard\.example\/a\?b=1&amp;c=&apos;2&apos;\/skill\.md<\/loc>/);
  });
});
