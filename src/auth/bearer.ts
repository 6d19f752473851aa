// Reads `Authorization: Bearer <token>` and answers 401 in one documented shape when it fails.
import type { ErrorCode } from '../catalogue/errors.js';
import { errorResponse } from '../http/responses.js';
import type { PlainRequest, PlainResponse } from '../http/types.js';
import type { AccessTokens, TokenClaims } from './access-tokens.js';

export type BearerResult = { ok: true; claims: TokenClaims; token: string } | { ok: false; response: PlainResponse };

/** RFC 6750 section 3: a 401 names the scheme, and the error when a token was sent. */
export function unauthorized(code: ErrorCode, tokenSent: boolean, detail?: string): PlainResponse {
  const challenge = tokenSent ? 'Bearer error="invalid_token"' : 'Bearer';
  return errorResponse(code, detail, { 'www-authenticate': challenge });
}

/** The raw token, null when the header is absent, or undefined when it is malformed. */
export function bearerToken(request: PlainRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') return null;
  const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*\.[A-Za-z0-9\-_]*)$/.exec(header.trim());
  return match ? match[1] : undefined;
}

export async function authenticate(tokens: AccessTokens, request: PlainRequest): Promise<BearerResult> {
  const token = bearerToken(request);
  if (token === null) return { ok: false, response: unauthorized('not_authenticated', false) };
  if (token === undefined) return { ok: false, response: unauthorized('authorization_malformed', true) };
  const checked = await tokens.check(token);
  return checked.ok ? { ok: true, claims: checked.claims, token } : { ok: false, response: unauthorized(checked.code, true) };
}
