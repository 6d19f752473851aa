// The uWS edge: routing, body reading with a cap, and corked response writing.
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { loadNativeUws } from './uws.js';
import { readBody, BodyTooLarge } from './body.js';
import { internalError, methodNotAllowed, notFound, payloadTooLarge } from './responses.js';
import type { Handler, PlainRequest, PlainResponse, Route } from './types.js';

export interface EdgeOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Called with errors a handler threw; the client gets a 500. */
  onHandlerError: (error: unknown, request: PlainRequest) => void;
}

export interface RunningEdge {
  port: number;
  close(): void;
}

const uws = loadNativeUws();

const UWS_METHOD: Record<Route['method'], 'get' | 'post' | 'del' | 'put' | 'patch'> = {
  get: 'get', post: 'post', delete: 'del', put: 'put', patch: 'patch',
};

const STATUS_LINES = new Map<number, string>(
  Object.entries(STATUS_CODES).map(([code, text]) => [Number(code), `${code} ${text}`]),
);

export function startEdge(routes: Route[], options: EdgeOptions): Promise<RunningEdge> {
  const app = uws.App();
  registerRoutes(app, routes, options);
  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (token: us_listen_socket | false) => {
      if (!token) return reject(new Error(`could not listen on ${options.host}:${options.port} (in use or not permitted)`));
      resolve({ port: uws.us_socket_local_port(token as never), close: () => uws.us_listen_socket_close(token) });
    });
  });
}

function registerRoutes(app: TemplatedApp, routes: Route[], options: EdgeOptions): void {
  const byPattern = new Map<string, Route[]>();
  for (const route of routes) byPattern.set(route.pattern, [...(byPattern.get(route.pattern) ?? []), route]);
  for (const [pattern, group] of byPattern) {
    for (const route of group) app[UWS_METHOD[route.method]](pattern, edgeHandler(route, options));
    const allowed = group.map((route) => route.method.toUpperCase());
    // Method-specific handlers take precedence over `any` for the same pattern in uWS.
    app.any(pattern, fixedHandler(methodNotAllowed(allowed)));
  }
  app.any('/*', fixedHandler(notFound()));
}

function fixedHandler(response: PlainResponse) {
  return (res: HttpResponse) => writeResponse(res, response);
}

function edgeHandler(route: Route, options: EdgeOptions) {
  const names = route.pattern.split('/').filter((part) => part.startsWith(':')).map((part) => part.slice(1));
  return (res: HttpResponse, req: HttpRequest) => {
    const state = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    // uWS request objects live on the stack: copy everything before the first await.
    const request = copyRequest(res, req, names);
    const body = route.readsBody ? readBody(res, request.headers, options.maxBodyBytes) : Promise.resolve(null);
    void respond(res, state, route.handler, request, body, options);
  };
}

async function respond(
  res: HttpResponse,
  state: { aborted: boolean },
  handler: Handler,
  request: PlainRequest,
  body: Promise<Buffer | null>,
  options: EdgeOptions,
): Promise<void> {
  let response: PlainResponse;
  try {
    request.body = await body;
    response = await handler(request);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      if (!state.aborted) res.cork(() => writeResponse(res, payloadTooLarge(options.maxBodyBytes), true));
      return;
    }
    options.onHandlerError(error, request);
    response = internalError();
  }
  if (!state.aborted) res.cork(() => writeResponse(res, response));
}

function copyRequest(res: HttpResponse, req: HttpRequest, names: string[]): PlainRequest {
  const headers: Record<string, string> = {};
  req.forEach((key, value) => {
    headers[key] = value;
  });
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    params[name] = decodeSegment(req.getParameter(index) ?? '');
  });
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    params,
    query: parseQuery(req.getQuery() ?? ''),
    headers,
    body: null,
    ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parseQuery(text: string): Record<string, string> {
  const query: Record<string, string> = {};
  if (text === '') return query;
  for (const [key, value] of new URLSearchParams(text)) if (!(key in query)) query[key] = value;
  return query;
}

function writeResponse(res: HttpResponse, response: PlainResponse, closeConnection = false): void {
  res.writeStatus(STATUS_LINES.get(response.status) ?? String(response.status));
  if (response.headers) for (const [name, value] of Object.entries(response.headers)) res.writeHeader(name, value);
  if (response.raw) {
    res.writeHeader('content-type', response.raw.contentType);
    res.end(response.raw.text, closeConnection);
    return;
  }
  res.writeHeader('content-type', 'application/json');
  res.end(response.body === undefined ? '' : JSON.stringify(response.body), closeConnection);
}
