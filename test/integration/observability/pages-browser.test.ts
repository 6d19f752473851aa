// The four pages as a person sees them, in Debian's chromium driven by playwright-core: what each shows (the status page's decisions chart too), no console errors, a screenshot each.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { PATHS } from '../../../src/catalogue/published-facts.js';
import { launchChromium } from '../../support/browser.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../support/service.js';
// Kept after the run for a person to look at; git-ignored. The same folder from .build-*/ and dist/.
const SCREENSHOTS = fileURLToPath(new URL('../../../../test-artifacts/browser/', import.meta.url));
// Only turns a hang into a failure: a passing run waits for conditions, never for these.
const WAIT = { timeout: 30_000 };
const ANALYZE = `POST ${PATHS.analyzeFree}`;

let running: TestService;
let browser: Browser;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  running = await startTestService();
  // Traffic first, so the status and latency pages have a route to show.
  for (const wallet of ['0x00000000000000000000000000000000000000b1', '0x00000000000000000000000000000000000000b2', '0x00000000000000000000000000000000000000b3']) {
    assert.equal((await postJson(`${running.base}${PATHS.analyzeFree}`, sampleTrade({ wallet }))).status, 200);
  }
  // A failure, never a skip: without the browser these pages are simply untested.
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await running?.stop();
});

/**
 * Opens `path` in a fresh page, lets `check` assert what it shows, keeps a full-page screenshot
 * (also of a failing page, which is when it helps most), then asserts nothing was logged as an
 * error: console errors include scripts or styles that failed to load and CSP refusals.
 */
async function visit(path: string, name: string, check: (page: Page) => Promise<void>): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  try {
    await page.goto(`${running.base}${path}`, { waitUntil: 'load', ...WAIT });
    await check(page);
  } finally {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    await page.close();
  }
  assert.deepEqual(errors, [], `${path} logged errors`);
}

/** The text of each cell, row by row, of the rows `selector` matches. */
function cells(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(selector, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim() ?? '')));
}

describe('the pages in a real browser', () => {
  it('/status shows every component with its status and the analyze route among the requests', async () => {
    const components = (await getJson(`${running.base}${PATHS.status}`)).json.components as Record<string, { status: string }>;
    await visit(PATHS.statusPage, 'status', async (page) => {
      await page.waitForFunction(() => document.querySelectorAll('tr[data-component]').length > 0, undefined, WAIT);
      const rows = await cells(page, 'tr[data-component]');
      assert.deepEqual(rows.map(([name, status]) => [name, status]), [
        ['store', components.store!.status],
        ['chain', components.chain!.status],
        ['audit', components.audit!.status],
        ['feeds', components.feeds!.status],
        ['scoring', components.scoring!.status],
        ['facilitator', components.facilitator!.status],
      ]);
      assert.equal(await page.textContent('#overall'), 'ok');
      const traffic = await cells(page, '#traffic tr');
      assert.ok(traffic.some(([route]) => route === ANALYZE), `${ANALYZE} in ${JSON.stringify(traffic)}`);
    });
  });

  it('/status draws the verdicts per minute of the last hour as allow, warn and deny lines, with the counts the service made', async () => {
    // A deny beside the allowed trades of before(): 1,000 TSLA is far over the Tier 1 ceiling.
    const denied = await postJson(`${running.base}${PATHS.analyzeFree}`, sampleTrade({ wallet: '0x00000000000000000000000000000000000000b4', amount: 1000 }));
    assert.equal(denied.json.decision, 'deny', denied.text);
    const minutes = (await getJson(`${running.base}${PATHS.decisions}`)).json.minutes as Array<Record<string, number>>;
    const total = (kind: string) => minutes.reduce((sum, minute) => sum + minute[kind]!, 0);
    assert.equal(minutes.length, 60);
    // Every verdict this service made: the three of before() (whose decision depends on the hour the suite runs) and this deny.
    assert.equal(total('allow') + total('warn') + total('deny'), 4, JSON.stringify(minutes.slice(-2)));
    assert.ok(total('deny') >= 1);
    await visit(PATHS.statusPage, 'status-decisions', async (page) => {
      await page.waitForSelector('#decisions canvas', WAIT);
      const drawn = await page.$eval('#decisions', (chart) => ({ ...(chart as HTMLElement).dataset }));
      assert.deepEqual([drawn.allow, drawn.warn, drawn.deny], [String(total('allow')), String(total('warn')), String(total('deny'))]);
      // uPlot's legend names the series it drew.
      const legend = await page.$$eval('#decisions .u-legend .u-series th', (labels) => labels.map((label) => label.textContent?.trim()));
      assert.deepEqual(legend, ['minute', 'allow', 'warn', 'deny']);
    });
  });

  it('/latency.html draws a chart with data points and lists the analyze route', async () => {
    await visit(PATHS.latencyPage, 'latency', async (page) => {
      await page.waitForFunction(() => Number(document.getElementById('chart')?.dataset.points) > 0, undefined, WAIT);
      await page.waitForSelector('#chart canvas', WAIT);
      const table = await cells(page, '#table tr');
      const analyze = table.find(([route]) => route === ANALYZE);
      assert.ok(analyze, `${ANALYZE} in ${JSON.stringify(table)}`);
      assert.ok(Number(analyze[1]) >= 3, `at least the 3 requests sent, got ${analyze[1]}`);
    });
  });

  it('/docs lists the free analyze operation and the x402 one', async () => {
    await visit(PATHS.docs, 'docs', async (page) => {
      await page.waitForSelector('.opblock', WAIT);
      const operations = await page.$$eval('.opblock-summary', (summaries) => summaries.map((summary) =>
        `${summary.querySelector('.opblock-summary-method')?.textContent?.trim()} ${summary.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`));
      assert.ok(operations.includes(ANALYZE), `${ANALYZE} in ${JSON.stringify(operations)}`);
      assert.ok(operations.includes(`POST ${PATHS.x402Analyze}`), `POST ${PATHS.x402Analyze} in ${JSON.stringify(operations)}`);
    });
  });

  it('/methodology.html has the reason-code table with its codes', async () => {
    await visit(PATHS.methodologyHtml, 'methodology', async (page) => {
      // The first table after the "Reason codes" heading.
      const rows = await page.$$eval('h2', (headings) => {
        const heading = headings.find((h) => h.textContent?.trim() === 'Reason codes');
        let next = heading?.nextElementSibling;
        while (next && next.tagName !== 'TABLE' && next.tagName !== 'H2') next = next.nextElementSibling;
        if (next?.tagName !== 'TABLE') return null;
        return [...next.querySelectorAll('tbody tr')].map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim() ?? ''));
      });
      assert.ok(rows, 'a table under the "Reason codes" heading');
      const codes = rows.map(([code]) => code);
      for (const code of ['FAKE_TOKEN_SUSPECTED', 'PRICE_UNAVAILABLE', 'MARKET_CLOSED']) assert.ok(codes.includes(code), `${code} in ${JSON.stringify(codes)}`);
    });
  });
});
