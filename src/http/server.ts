// The uWS edge: routing, body reading with a cap, and corked response writing.
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { loadNativeUws } from './uws.js';
import { readBody, BodyAborted, BodyTooLarge, isJsonContent } from './body.js';
import { corsHeaders, preflight, type CorsOrigins } from './cors.js';
import { copyHeaders, copyRequest } from './plain-request.js';
import {
  conflictingContentLength, errorResponse, internalError, methodNotAllowed, notFound, payloadTooLarge, serviceStopping, uriTooLong,
} from './responses.js';
import type { PlainRequest, PlainResponse, Route } from './types.js';

export interface EdgeOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Which pages may read the answers (ARCHITECTURE.md "Cross-origin reads"). */
  corsOrigins: CorsOrigins;
  /** Called with errors a handler threw; the client gets a 500. */
  onHandlerError: (error: unknown, request: PlainRequest) => void;
  /** Called once a response is written (404 and 405 included): metrics, latency, the request log. Must not throw. */
  observe?: (observation: Observation) => void;
}

/** One answered request, as the edge saw it. */
export interface Observation {
  /** The route's pattern (`/api/v1/audit/wallet/:wallet`; `/*` for a path no route has), never the raw path. */
  route: string;
  method: string;
  status: number;
  /** From the request's arrival to its response handed to the socket. */
  ms: number;
  requestId: string;
  ip: string;
}

export interface RunningEdge {
  port: number;
  /**
   * Stops listening, refuses requests that arrive on open connections (503 `service_stopping`,
   * connection closed), and resolves once every request already taken is answered, or after
   * `graceMs`: what closes after the edge (scoring, the audit tree, the log) then closes under no request.
   */
  stop(graceMs: number): Promise<void>;
  /** Requests taken and not yet answered or given up (a client gone mid-body is given up at once). */
  inFlight(): number;
}

/** Requests the edge has taken and not yet answered, and whether it has begun to stop. */
class InFlight {
  stopping = false;
  count = 0;
  private idle: (() => void) | null = null;

  begin(): void {
    this.count++;
  }

  end(): void {
    this.count--;
    if (this.count === 0) this.idle?.();
  }

  drained(graceMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

const uws = loadNativeUws();
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT (ListenOptions in the typings, a plain export of the binary). */
const EXCLUSIVE_PORT = (uws as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;

/** Longest request target (path and query) the edge reads; longer ones get 414. */
export const MAX_TARGET_BYTES = 2 * 1024;

const UWS_METHOD: Record<Route['method'], 'get' | 'post' | 'del' | 'put' | 'patch'> = {
  get: 'get', post: 'post', delete: 'del', put: 'put', patch: 'patch',
};

const STATUS_LINES = new Map<number, string>(
  Object.entries(STATUS_CODES).map(([code, text]) => [Number(code), `${code} ${text}`]),
);

export function startEdge(routes: Route[], options: EdgeOptions): Promise<RunningEdge> {
  const app = uws.App();
  const inFlight = new InFlight();
  registerRoutes(app, routes, options, inFlight);
  return new Promise((resolve, reject) => {
    // uWS listens with SO_REUSEPORT unless told otherwise: a second service started on a busy port
    // would then take part of its requests, each writing its own audit chain. Exclusive, it is refused.
    // (The binary takes host, port, options and callback; the typings name options only without a host.)
    const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (token: us_listen_socket | false) => void) => void;
    listen.call(app, options.host, options.port, EXCLUSIVE_PORT, (token) => {
      if (!token) return reject(new Error(`could not listen on ${options.host}:${options.port} (in use or not permitted)`));
      resolve({
        port: uws.us_socket_local_port(token as never),
        stop: (graceMs) => {
          uws.us_listen_socket_close(token);
          inFlight.stopping = true;
          return inFlight.drained(graceMs);
        },
        inFlight: () => inFlight.count,
      });
    });
  });
}

function registerRoutes(app: TemplatedApp, routes: Route[], options: EdgeOptions, inFlight: InFlight): void {
  const byPattern = new Map<string, Route[]>();
  for (const route of routes) byPattern.set(route.pattern, [...(byPattern.get(route.pattern) ?? []), route]);
  for (const [pattern, group] of byPattern) {
    for (const route of group) app[UWS_METHOD[route.method]](pattern, edgeHandler(route, options, inFlight));
    const allowed = group.map((route) => route.method.toUpperCase());
    // A browser asks before a cross-origin POST or a request with Authorization: answer it, never 405.
    app.options(pattern, fixedHandler(pattern, (request) => preflight(options.corsOrigins, request.headers.origin, allowed), options, inFlight));
    // Method-specific handlers take precedence over `any` for the same pattern in uWS.
    const refused = rendered(methodNotAllowed(allowed));
    app.any(pattern, fixedHandler(pattern, () => refused, options, inFlight));
  }
  const missing = rendered(notFound());
  app.any('/*', fixedHandler('/*', () => missing, options, inFlight));
}

/** A fixed answer with its JSON body written once, when the routes are registered, not per request. */
function rendered(response: PlainResponse): PlainResponse {
  return { status: response.status, headers: response.headers, raw: { contentType: 'application/json', text: JSON.stringify(response.body) } };
}

/** An answer the edge gives itself (a preflight, 404, 405): logged, counted and tied by its request id like any other. */
function fixedHandler(pattern: string, answer: (request: PlainRequest) => PlainResponse, options: EdgeOptions, inFlight: InFlight) {
  return (res: HttpResponse, req: HttpRequest) => {
    if (inFlight.stopping) return writeResponse(res, serviceStopping(), true);
    const started = performance.now();
    const { headers, conflictingLength } = copyHeaders(req);
    const refused = framingProblem(req, conflictingLength);
    const request = copyRequest(res, req, [], headers);
    const response = refused ?? answer(request);
    writeWire(res, wireWithCors(response, options.corsOrigins, request), refused !== null);
    observe(options, pattern, request, response.status, started);
  };
}

function observe(options: EdgeOptions, route: string, request: PlainRequest, status: number, started: number): void {
  options.observe?.({ route, method: request.method, status, ms: performance.now() - started, requestId: request.id, ip: request.ip });
}

/** The response on the wire with the CORS grant for the request's origin, and its request id. */
function wireWithCors(response: PlainResponse, origins: CorsOrigins, request: PlainRequest): WireResponse {
  return toWire(response, corsHeaders(origins, request.headers.origin), request.id);
}

/**
 * What uWS parses but a careful server refuses: a request target over
 * MAX_TARGET_BYTES (414), and two different Content-Length values, the
 * request-smuggling shape of RFC 9112 section 6.3 (400). Both close the connection.
 */
function framingProblem(req: HttpRequest, conflictingLength: boolean): PlainResponse | null {
  if (req.getUrl().length + (req.getQuery() ?? '').length > MAX_TARGET_BYTES) return uriTooLong(MAX_TARGET_BYTES);
  return conflictingLength ? conflictingContentLength() : null;
}

function edgeHandler(route: Route, options: EdgeOptions, inFlight: InFlight) {
  const names = route.pattern.split('/').filter((part) => part.startsWith(':')).map((part) => part.slice(1));
  return (res: HttpResponse, req: HttpRequest) => {
    if (inFlight.stopping) return writeResponse(res, serviceStopping(), true);
    const state = { aborted: false, started: performance.now(), route: route.pattern };
    let abortBody = () => {};
    res.onAborted(() => {
      state.aborted = true;
      abortBody();
    });
    try {
      // uWS request objects live on the stack: copy everything before the first await.
      const { headers, conflictingLength } = copyHeaders(req);
      const refused = framingProblem(req, conflictingLength);
      if (refused) return writeResponse(res, refused, true);
      const request = copyRequest(res, req, names, headers);
      const body = route.readsBody
        ? readBody(res, request.headers, options.maxBodyBytes, (abort) => (abortBody = abort))
        : Promise.resolve(null);
      inFlight.begin();
      void respond(res, state, route, request, body, options, inFlight);
    } catch (error) {
      // Nothing thrown in a uWS callback may reach the process: answer 500 and log.
      options.onHandlerError(error, { method: req.getMethod(), path: req.getUrl() } as PlainRequest);
      writeResponse(res, internalError(), true);
    }
  };
}

async function respond(
  res: HttpResponse,
  state: { aborted: boolean; started: number; route: string },
  route: Route,
  request: PlainRequest,
  body: Promise<Buffer | null>,
  options: EdgeOptions,
  inFlight: InFlight,
): Promise<void> {
  // Counted out here rather than by a `.finally()` on the call: one promise fewer per request.
  try {
    let response: PlainResponse;
    let close = false;
    try {
      request.body = await body;
      // Only JSON is read as JSON: a text/plain or form body is refused unread (docs/operations.md "Answers a client must handle").
      response = !route.ownsContentType && request.body !== null && request.body.length > 0 && !isJsonContent(request.headers['content-type'])
        ? errorResponse('unsupported_media_type')
        : await route.handler(request);
    } catch (error) {
      // The client left mid-body: nothing was handled and no one is there to answer.
      if (error instanceof BodyAborted) return;
      close = error instanceof BodyTooLarge;
      if (!close) options.onHandlerError(error, request);
      response = close ? payloadTooLarge(options.maxBodyBytes) : internalError();
    }
    if (state.aborted) return;
    let wire: WireResponse;
    try {
      wire = wireWithCors(response, options.corsOrigins, request);
    } catch (error) {
      // A body that cannot be serialised (a cycle, a BigInt, a value too deep) is our fault: 500, never an exit.
      options.onHandlerError(error, request);
      wire = wireWithCors(internalError(), options.corsOrigins, request);
    }
    // Once the service is stopping, a keep-alive client is sent to reconnect (elsewhere, or after the restart).
    res.cork(() => writeWire(res, wire, close || inFlight.stopping));
    observe(options, state.route, request, response.status, state.started);
  } finally {
    inFlight.end();
  }
}

/**
 * A response reduced to what goes on the wire; building it is the only step that can throw. Its
 * headers stay in the objects they came in and are written from there, with no list of pairs
 * built per answer.
 */
interface WireResponse {
  status: string;
  /** The CORS grant, written first; a route that states its own grant (the public documents) keeps it. */
  cors: Readonly<Record<string, string>>;
  own: Readonly<Record<string, string>> | undefined;
  contentType: string;
  text: string | Buffer;
  /** X-Request-Id, written last; null on the answers the edge gives before it has read the request. */
  requestId: string | null;
}

const NO_CORS: Readonly<Record<string, string>> = Object.freeze({});

function toWire(response: PlainResponse, cors = NO_CORS, requestId: string | null = null): WireResponse {
  const text = response.raw ? response.raw.text : response.body === undefined ? '' : JSON.stringify(response.body);
  return {
    status: STATUS_LINES.get(response.status) ?? String(response.status),
    cors,
    own: response.headers,
    contentType: response.raw ? response.raw.contentType : 'application/json',
    text,
    requestId,
  };
}

function writeWire(res: HttpResponse, wire: WireResponse, closeConnection: boolean): void {
  const { cors, own } = wire;
  res.writeStatus(wire.status);
  for (const name in cors) if (own === undefined || own[name] === undefined) res.writeHeader(name, cors[name]);
  if (own !== undefined) for (const name in own) res.writeHeader(name, own[name]);
  res.writeHeader('content-type', wire.contentType);
  if (wire.requestId !== null) res.writeHeader('x-request-id', wire.requestId);
  res.end(wire.text, closeConnection);
}

/** For responses built by the edge itself (fixed, known serialisable). */
function writeResponse(res: HttpResponse, response: PlainResponse, closeConnection = false): void {
  writeWire(res, toWire(response), closeConnection);
}
