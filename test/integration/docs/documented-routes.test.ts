// Every route README.md and docs/*.md name is one the running service routes: none is answered as a path no route has.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { codeSpans, proseLines, readDocuments, tableRows } from '../../support/markdown-docs.js';
import { send, startTestService, type TestService } from '../../support/service.js';

/** Paths the docs name that are not the service's: files in /proc and /usr (the browser the tests drive), the metrics' label for no route, and the facilitator's own routes (src/tools/facilitator/http-server.ts). */
const NOT_THE_SERVICE = [/^\/(proc|usr)(\/|$)/, /^\/\*$/, /^\/(verify|settle|supported)$/];
const EXAMPLE_PARAMETERS: Record<string, string> = { wallet: '0x1111111111111111111111111111111111111111', seq: '1' };

interface NamedRoute {
  method: string;
  path: string;
  where: string;
}

/** `METHOD /path` or `/path` (GET) in inline code, and the rows of every `method` table. */
function namedRoutes(): NamedRoute[] {
  const named: NamedRoute[] = [];
  for (const { path: where, text } of readDocuments()) {
    for (const [methods, paths] of tableRows(text, 'method')) {
      for (const method of methods.split(' / ')) for (const path of codeSpans(paths)) if (path.startsWith('/')) named.push({ method, path, where });
    }
    for (const { line } of proseLines(text)) {
      for (const span of codeSpans(line)) {
        const route = /^(?:(GET|POST|DELETE|OPTIONS) )?(\/\S*)$/.exec(span);
        if (route) named.push({ method: route[1] ?? 'GET', path: route[2], where });
      }
    }
  }
  return named.map((route) => ({ ...route, path: route.path.split('?')[0] })).filter(({ path }) => !NOT_THE_SERVICE.some((pattern) => pattern.test(path)));
}

/** A shorthand such as `/audit/verify` or `/verify/{wallet}` stands for the one full `/api/...` route it ends. */
function expanded(routes: NamedRoute[]): NamedRoute[] {
  const full = [...new Set(routes.map(({ path }) => path).filter((path) => path.startsWith('/api/')))];
  return routes.map((route) => {
    if (route.path.startsWith('/api/')) return route;
    const ending = full.filter((path) => path.endsWith(route.path));
    return ending.length === 1 ? { ...route, path: ending[0] } : route;
  });
}

let running: TestService;

before(async () => {
  running = await startTestService({ ADMIN_TOKEN: 'documented-routes-admin-token', RATE_LIMITS: 'off' });
});
after(() => running.stop());

describe('the documented routes', () => {
  it('are all routed by the service: none is answered as an unknown path (404 not_found)', async () => {
    const routes = expanded(namedRoutes());
    const unrouted: string[] = [];
    for (const key of new Set(routes.map(({ method, path }) => `${method} ${path}`))) {
      const [method, path] = key.split(' ') as [string, string];
      const url = running.base + path.replace(/\{(\w+)\}/g, (_, name: string) => EXAMPLE_PARAMETERS[name] ?? name);
      const answer = await send(method, url, method === 'POST' ? '{}' : undefined, method === 'POST' ? { 'content-type': 'application/json' } : {});
      if (answer.status === 404 && answer.json?.code === 'not_found') {
        unrouted.push(`${key} (named in ${routes.filter((route) => `${route.method} ${route.path}` === key).map(({ where }) => where).filter((where, index, all) => all.indexOf(where) === index).join(', ')})`);
      }
    }
    assert.deepEqual(unrouted, []);
  });
});
