// A page on another origin, in a real browser, calls the service: the preflight is answered and the paid call's receipt is readable.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ANVIL_DEV_ACCOUNTS } from '../../../src/tools/devnet/wallets.js';
import { PATHS } from '../../../src/catalogue/published-facts.js';
import { launchChromium } from '../../support/browser.js';
import { PaidWorld } from '../../support/paid-world.js';
import type { TestService } from '../../support/service.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { signPayment } from '../../support/x402-payer.js';

/** Demo wallet B of the devnet (anvil account 2): it holds the stablecoin it pays with. */
const PAYER = ANVIL_DEV_ACCOUNTS[2];
const tempDir = useTempDirs('cors-browser-');

let world: PaidWorld;
let running: TestService;
let browser: Browser;
/** Another origin (another port): the page an agent's web front end would be. */
let page: Server;
let pageOrigin: string;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  running = await world.service();
  page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>agent</title>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  page?.close();
  await running?.stop();
  await world?.close();
});

describe('cross-origin calls from a browser', () => {
  it('pays with X-PAYMENT from another origin and reads the PAYMENT-RESPONSE receipt and the request id', async () => {
    const payment = await signPayment(PAYER.privateKey, await world.challenge(running.base));
    const tab = await browser.newPage();
    try {
      await tab.goto(pageOrigin);
      // X-PAYMENT and a JSON body make the browser ask first (a preflight OPTIONS); a refused one is a TypeError here.
      const answer = await tab.evaluate(async ({ url, body, payment }) => {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-payment': payment }, body });
        return { status: response.status, receipt: response.headers.get('payment-response'), id: response.headers.get('x-request-id') };
      }, { url: `${running.base}${PATHS.x402Analyze}`, body: JSON.stringify(world.trade()), payment });
      assert.equal(answer.status, 200);
      assert.ok(answer.id, 'X-Request-Id is readable');
      const receipt = JSON.parse(Buffer.from(answer.receipt ?? '', 'base64').toString());
      assert.equal(receipt.success, true);
      assert.equal(receipt.payer.toLowerCase(), PAYER.address.toLowerCase());
      assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
    } finally {
      await tab.close();
    }
  });

  it('reads /status.json from another origin', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(pageOrigin);
      const status = await tab.evaluate(async (url) => (await (await fetch(url)).json()).version, `${running.base}${PATHS.status}`);
      assert.equal(typeof status, 'string');
    } finally {
      await tab.close();
    }
  });
});
