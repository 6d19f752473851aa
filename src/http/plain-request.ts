// Copies a uWS request off the stack into the plain request handlers take: headers, path parameters, query, request id.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { PlainRequest } from './types.js';

/** Every header, in one pass that also notices a second, different Content-Length. */
export function copyHeaders(req: HttpRequest): { headers: Record<string, string>; conflictingLength: boolean } {
  const headers: Record<string, string> = {};
  let conflictingLength = false;
  req.forEach((key, value) => {
    if (key === 'content-length' && headers[key] !== undefined && headers[key] !== value) conflictingLength = true;
    headers[key] = value;
  });
  return { headers, conflictingLength };
}

export function copyRequest(res: HttpResponse, req: HttpRequest, names: string[], headers: Record<string, string>): PlainRequest {
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    params[name] = decodeSegment(req.getParameter(index) ?? '');
  });
  return {
    id: requestId(headers['x-request-id']),
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    params,
    query: parseQuery(req.getQuery() ?? ''),
    headers,
    body: null,
    ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
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
