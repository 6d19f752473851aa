// /openapi.json and the /docs reference over real sockets, offline: the document names this service, the page loads only from it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PATHS } from '../../../../src/catalogue/published-facts.js';
import { ErrorBody } from '../../../../src/schemas/errors.js';
import { HTTPValidationError } from '../../../../src/schemas/resources.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import { getJson, postJson, send, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;

before(async () => {
  running = await startTestService();
});
after(() => running.stop());

/** The `src` of every script and `href` of every stylesheet the page names. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="stylesheet"[^>]*\shref)="([^"]+)"/g)].map((match) => match[1]!);
}

describe('/openapi.json', () => {
  it('is 200 JSON whose one server is the address the service listens on', async () => {
    const response = await getJson(`${running.base}${PATHS.openapi}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.json.openapi, '3.1.0');
    assert.deepEqual(response.json.servers, [{ url: running.base }]);
    assert.ok(response.json.paths[PATHS.analyzeFree].post);
  });

  it('declares the bodies the service sends: a 422 and a 401 match the schemas it names', async () => {
    const invalid = await postJson(`${running.base}${PATHS.analyzeFree}`, { wallet: 'nope' });
    assert.equal(invalid.status, 422);
    assert.ok(compileValidator(HTTPValidationError, 'body')(invalid.json).ok);
    const unauthenticated = await getJson(`${running.base}${PATHS.config}`);
    assert.equal(unauthenticated.status, 401);
    assert.ok(compileValidator(ErrorBody, 'body')(unauthenticated.json).ok);
  });
});

describe('/docs', () => {
  it('is an HTML page that points at /openapi.json and loads only scripts and styles served here', async () => {
    const page = await send('GET', `${running.base}${PATHS.docs}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok(page.text.includes(`data-openapi="${PATHS.openapi}"`));
    const assets = assetsOf(page.text);
    assert.ok(assets.some((src) => src.endsWith('.js')), 'a script');
    for (const src of assets) assert.ok(src.startsWith(`${PATHS.docs}/assets/`), `${src} is served by this service`);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self';/);
  });

  it('serves each script as JavaScript and each stylesheet as CSS', async () => {
    const page = await send('GET', `${running.base}${PATHS.docs}`);
    for (const src of assetsOf(page.text)) {
      const asset = await send('GET', `${running.base}${src}`);
      assert.equal(asset.status, 200, src);
      const type = src.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
      assert.equal(asset.headers.get('content-type'), type, src);
      assert.ok(asset.text.length > 0, src);
    }
  });

  it('ships Swagger UI from the installed package, told not to send the document to a validator elsewhere', async () => {
    const bundle = await send('GET', `${running.base}${PATHS.docs}/assets/swagger-ui-bundle.js`);
    assert.ok(bundle.text.includes('SwaggerUIBundle'));
    const init = await send('GET', `${running.base}${PATHS.docs}/assets/init.js`);
    assert.match(init.text, /validatorUrl: null/);
    assert.match(init.text, /dataset\.openapi/);
  });
});
