// Cross-origin reads (CORS, the Fetch standard): which pages may read the answers, which headers they may read, preflights.
import type { PlainResponse } from './types.js';

/** `*`: any page; else the origins (lower-case `scheme://host[:port]`) named by CORS_ORIGINS; empty: none. */
export type CorsOrigins = '*' | readonly string[];

/**
 * What a page may read besides the body: the receipts and terms of a paid call (docs/x402.md), the request id, the rate windows, the bearer challenge, MCP's session, the audit export's head.
 */
const EXPOSED = [
  'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE', 'PAYMENT-REQUIRED', 'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit',
  'X-RateLimit-Window', 'WWW-Authenticate', 'Mcp-Session-Id', 'X-Audit-Head-Seq', 'X-Audit-Head-Hash', 'X-Audit-Next-Seq',
].join(', ');

/** The request headers a client sends; `Authorization` must be named, since a `*` there never covers it. */
const ALLOWED_HEADERS = [
  'Content-Type', 'Authorization', 'X-PAYMENT', 'PAYMENT-SIGNATURE', 'X-Preview-Tier', 'X-Request-Id', 'X-Admin-Token',
  'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID', 'A2A-Version',
].join(', ');

/** The grant for every page, the same object for every answer. */
const ANY_ORIGIN = Object.freeze({ 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED });

/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The headers every answer carries for a request from `origin`. No credentials mode (the service
 * sets no cookie; a bearer token travels in `Authorization`), so `*` is safe for a public API.
 */
export function corsHeaders(origins: CorsOrigins, origin: string | undefined): Readonly<Record<string, string>> {
  if (origins === '*') return ANY_ORIGIN;
  // The answer depends on Origin: caches must keep one per origin.
  if (origin === undefined || !origins.includes(origin.toLowerCase())) return { vary: 'Origin' };
  return { vary: 'Origin', 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED };
}

/** The answer to `OPTIONS` on a route: 204 with the methods it takes, and the CORS grant when the origin has one. */
export function preflight(origins: CorsOrigins, origin: string | undefined, methods: readonly string[]): PlainResponse {
  const allow = [...methods, 'OPTIONS'].join(', ');
  const grant = corsHeaders(origins, origin);
  const headers: Record<string, string> = { ...grant, allow };
  if (grant['access-control-allow-origin'] !== undefined) {
    headers['access-control-allow-methods'] = allow;
    headers['access-control-allow-headers'] = ALLOWED_HEADERS;
    headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
  }
  return { status: 204, headers };
}
