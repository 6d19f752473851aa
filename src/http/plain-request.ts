// Copies a uWS request off the stack into the plain request handlers take: headers, path parameters, query, request id.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { PlainRequest } from './types.js';

/** The headers being copied by copyHeaders, and whether a second, different Content-Length came. */
let copying: Record<string, string> = {};
let conflicting = false;

/** One callback for every request, not a closure made per request. */
function copyHeader(key: string, value: string): void {
  if (key === 'content-length' && copying[key] !== undefined && copying[key] !== value) conflicting = true;
  copying[key] = value;
}

/** Every header, in one pass that also notices a second, different Content-Length. */
export function copyHeaders(req: HttpRequest): { headers: Record<string, string>; conflictingLength: boolean } {
  const headers: Record<string, string> = {};
  copying = headers;
  conflicting = false;
  req.forEach(copyHeader);
  return { headers, conflictingLength: conflicting };
}

export function copyRequest(res: HttpResponse, req: HttpRequest, names: string[], headers: Record<string, string>): PlainRequest {
  const params: Record<string, string> = {};
  for (let index = 0; index < names.length; index++) params[names[index]] = decodeSegment(req.getParameter(index) ?? '');
  return {
    id: requestId(headers['x-request-id']),
    method: methodName(req.getMethod()),
    path: req.getUrl(),
    params,
    query: parseQuery(req.getQuery() ?? ''),
    headers,
    body: null,
    ip: addressText(new Uint8Array(res.getRemoteAddress())),
  };
}

/** uWS gives the method in lower case; the methods the service routes are named by one string each, not upper-cased per request. */
const METHOD_NAMES = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((name) => [name, name.toUpperCase()]));

function methodName(method: string): string {
  return METHOD_NAMES.get(method) ?? method.toUpperCase();
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * The peer's address as uWS's getRemoteAddressAsText() writes it (dotted for 4 bytes, eight groups
 * of four hex digits for 16), from the binary form: the text form cost about twice as much per request (issue 30).
 */
export function addressText(bytes: Uint8Array): string {
  if (sameBytes(bytes, lastAddress)) return lastAddressText;
  let text: string;
  if (bytes.length === 4) text = `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  else {
    text = '';
    for (let i = 0; i < bytes.length; i += 2) text += (i === 0 ? '' : ':') + HEX_BYTES[bytes[i]] + HEX_BYTES[bytes[i + 1]];
  }
  lastAddress = bytes;
  lastAddressText = text;
  return text;
}

/**
 * The last address written, and its text: a keep-alive client sends request after request from one address, which
 * then shares one string (written and flattened once, its hash kept for the rate windows' keys and the log line).
 */
let lastAddress: Uint8Array = new Uint8Array(0);
let lastAddressText = '';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const BOOT = process.pid.toString(36);
let requests = 0;
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's X-Request-Id when it is a plain token, else one of ours: the process and a counter. */
function requestId(offered: string | undefined): string {
  if (offered !== undefined && CLIENT_ID.test(offered)) return offered;
  requests += 1;
  return `${BOOT}-${requests.toString(36)}`;
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
