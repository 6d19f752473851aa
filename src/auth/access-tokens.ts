// Access tokens: HS256 JWTs with a jti, revocable through a deny entry in the shared store.
import { revokedTokenKey } from '../store/keys.js';
import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { CacheStore } from '../store/cache-store.js';
import { EvictionCursor } from '../store/eviction-cursor.js';

export const TOKEN_LIFETIME_S = 3600;
const ISSUER = 'trade-guardrail';

export interface TokenClaims {
  wallet: string;
  jti: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; code: 'token_expired' | 'token_invalid' | 'token_revoked' };


/** Tokens whose signature and claims were verified, kept so a signed-in fleet pays for verification once per token. */
const VERIFIED_CAP = 10_000;

export class AccessTokens {
  private readonly verified = new Map<string, TokenClaims>();
  private readonly oldestVerified = new EvictionCursor(this.verified);

  constructor(
    private readonly secret: Uint8Array,
    private readonly store: CacheStore,
    private readonly now: () => number,
    readonly lifetimeS = TOKEN_LIFETIME_S,
  ) {}

  async issue(wallet: string): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setSubject(wallet.toLowerCase())
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.lifetimeS)
      .sign(this.secret);
  }

  /**
   * Only HS256 is accepted, so `alg: none` and algorithm swaps are refused by jose. A token that
   * verified once is remembered: its signature cannot change, so only its expiry (as jose judges
   * it, whole seconds) and revocation are checked again. Verification through WebCrypto cost a
   * bearer request about 100 us of the event loop.
   */
  async check(token: string): Promise<TokenCheck> {
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (known.exp <= Math.floor(this.now() / 1000)) {
        this.verified.delete(token);
        return { ok: false, code: 'token_expired' };
      }
      return this.unlessRevoked(known);
    }
    let claims: TokenClaims;
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: ISSUER,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'jti', 'exp'],
      });
      claims = { wallet: String(payload.sub), jti: String(payload.jti), exp: Number(payload.exp) };
    } catch (error) {
      return { ok: false, code: error instanceof errors.JWTExpired ? 'token_expired' : 'token_invalid' };
    }
    if (this.verified.size >= VERIFIED_CAP) this.oldestVerified.evictOldest();
    this.verified.set(token, claims);
    return this.unlessRevoked(claims);
  }

  /** Revocation is looked up in the shared store every time, so it holds on every instance at once. */
  private async unlessRevoked(claims: TokenClaims): Promise<TokenCheck> {
    if ((await this.store.get(revokedTokenKey(claims.jti))) !== null) return { ok: false, code: 'token_revoked' };
    return { ok: true, claims };
  }

  /** Keeps the deny entry until the token would have expired anyway. */
  async revoke(claims: TokenClaims): Promise<void> {
    const remainingMs = Math.max(1_000, claims.exp * 1000 - this.now());
    await this.store.set(revokedTokenKey(claims.jti), '1', remainingMs);
  }
}
