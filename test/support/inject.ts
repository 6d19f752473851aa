// Calls a route handler in process, fastify-inject style: a plain request in, the plain response out, no socket.
import type { PlainRequest, PlainResponse, Route } from '../../src/http/types.js';

export interface Injected {
  status: number;
  headers: Record<string, string>;
  /** The body as the handler gave it (what the edge would serialise). */
  body: any;
}

/** The path parameters when `pattern` (uWS form, `:name` segments) matches `path`, else null. */
function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** Runs the handler of the route that serves `method path`; throws when none does. */
export async function inject(
  routes: readonly Route[],
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Injected> {
  const [path, search = ''] = url.split('?');
  for (const route of routes) {
    const params = route.method === method.toLowerCase() ? match(route.pattern, path) : null;
    if (params === null) continue;
    const body = options.body === undefined ? null : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
    const request: PlainRequest = {
      id: 'inject', method: method.toUpperCase(), path, params,
      query: Object.fromEntries(new URLSearchParams(search)),
      headers: { 'content-type': 'application/json', ...options.headers },
      body, ip: '127.0.0.1',
    };
    const response: PlainResponse = await route.handler(request);
    // A body the handler wrote as JSON text already (a verdict) reads back as the value the edge would send.
    const answered = response.raw && response.raw.contentType === 'application/json' ? JSON.parse(String(response.raw.text)) : response.body;
    return { status: response.status, headers: response.headers ?? {}, body: answered };
  }
  throw new Error(`no route serves ${method} ${path}`);
}
