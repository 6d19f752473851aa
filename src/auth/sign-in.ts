// Wallet sign-in with EIP-4361 (SIWE) messages: issue a nonce, verify the signed message, consume it.
import { BaseError, getAddress, HttpRequestError, SocketClosedError, TimeoutError, verifyMessage, WebSocketRequestError, type Hex, type PublicClient } from 'viem';
import { createSiweMessage, generateSiweNonce, parseSiweMessage, type SiweMessage } from 'viem/siwe';
import { ChainUnavailableError } from '../facts/chain/errors.js';
import type { CacheStore } from '../store/cache-store.js';
import { NONCE_TTL_MS, PendingMessages, type PendingMessage } from './pending-messages.js';

export { MAX_PENDING_MESSAGES, NONCE_TTL_MS } from './pending-messages.js';

export interface SignInSettings {
  /** RFC 3986 authority the message is bound to, e.g. `127.0.0.1:8080` or `guard.example.com`. */
  domain: string;
  /** URI of the service, e.g. `http://127.0.0.1:8080`. */
  uri: string;
  chainId: number;
}

/** On success, `message` is the pending message the signature signs; consume() spends it. */
export type SignInResult = { ok: true; wallet: string; message: string } | { ok: false; detail: string };

export const NO_PENDING_MESSAGE = 'No sign-in message is pending for this address; request a nonce first';
export const SIGNATURE_MISMATCH = 'Signature does not match the pending sign-in message for this address';
export const ALREADY_USED = 'This sign-in message was already used; request a new nonce';

/**
 * Several messages may be pending per address (see PendingMessages). Verifying changes
 * nothing: the caller consumes the message only once everything else it needs (the
 * wallet's holdings, from the chain) was read, so a sign-in that fails for a dependency
 * leaves the message usable.
 */
export class SignIn {
  private readonly pending: PendingMessages;

  constructor(
    store: CacheStore,
    private readonly settings: SignInSettings,
    private readonly client: PublicClient | null,
    private readonly now: () => number,
  ) {
    this.pending = new PendingMessages(store);
  }

  async issue(address: string): Promise<string> {
    const issuedAt = new Date(this.now());
    const expiresAt = issuedAt.getTime() + NONCE_TTL_MS;
    const message = createSiweMessage({
      address: getAddress(address.toLowerCase()),
      chainId: this.settings.chainId,
      domain: this.settings.domain,
      uri: this.settings.uri,
      version: '1',
      nonce: generateSiweNonce(),
      issuedAt,
      expirationTime: new Date(expiresAt),
      statement: 'Sign in to the trade guardrail. This request costs no gas and approves nothing.',
    });
    await this.pending.add(address, { message, expiresAt }, issuedAt.getTime());
    return message;
  }

  /** Finds the pending message the signature signs, then says which of its checks fails, if one does. */
  async verify(address: string, signature: Hex): Promise<SignInResult> {
    const pending = await this.pending.list(address);
    if (pending.length === 0) return { ok: false, detail: NO_PENDING_MESSAGE };
    const signed = await this.signedMessage(address, pending, signature);
    if (signed === null) return { ok: false, detail: SIGNATURE_MISMATCH };
    const problem = messageProblem(parseSiweMessage(signed.message), {
      domain: this.settings.domain,
      chainId: this.settings.chainId,
      address: address.toLowerCase(),
      nowMs: this.now(),
    });
    return problem === null ? { ok: true, wallet: address.toLowerCase(), message: signed.message } : { ok: false, detail: problem };
  }

  /** Single use: true only for the caller that removed this exact message. */
  consume(address: string, message: string): Promise<boolean> {
    return this.pending.consume(address, message);
  }

  /**
   * Newest first. EOAs are checked locally; only when no message matches is the chain asked
   * (EIP-1271 smart-contract wallets), and a node that does not answer rejects rather than
   * reading as a wrong signature.
   */
  private async signedMessage(address: string, pending: PendingMessage[], signature: Hex): Promise<PendingMessage | null> {
    const account = getAddress(address.toLowerCase());
    const newestFirst = [...pending].reverse();
    for (const entry of newestFirst) {
      if (await verifyMessage({ address: account, message: entry.message, signature }).catch(() => false)) return entry;
    }
    if (!this.client) return null;
    for (const entry of newestFirst) {
      const check = this.client.verifyMessage({ address: account, message: entry.message, signature });
      if (await check.catch(wrongUnlessUnanswered)) return entry;
    }
    return null;
  }
}

/**
 * viem answers false for a signature the wallet refuses; an error is either a node that did
 * not answer (the sign-in cannot be decided: 503) or a signature it could not even use (false).
 */
function wrongUnlessUnanswered(error: unknown): false {
  const transport = (e: unknown) =>
    e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError || e instanceof SocketClosedError;
  if (error instanceof BaseError && error.walk(transport)) throw new ChainUnavailableError('EIP-1271 signature check', error);
  return false;
}

interface Expected {
  domain: string;
  chainId: number;
  address: string;
  nowMs: number;
}

/**
 * Names the first check that fails (domain, chain, address, nonce, validity window), or null.
 * A message from this store can still fail them: an instance with another PUBLIC_BASE_URL
 * or chain may share the store, and the clock moves on while a message waits.
 */
export function messageProblem(fields: Partial<SiweMessage>, expected: Expected): string | null {
  if (fields.domain !== expected.domain) {
    return `The sign-in message is for the domain ${fields.domain ?? '(none)'}, not ${expected.domain}; request a nonce from this service`;
  }
  if (fields.chainId !== expected.chainId) {
    return `The sign-in message is for chain ${fields.chainId ?? '(none)'}, not ${expected.chainId}; request a nonce from this service`;
  }
  if (fields.address?.toLowerCase() !== expected.address) return 'The sign-in message is for another address; request a nonce for this address';
  if (!fields.nonce) return 'The sign-in message carries no nonce; request a new nonce';
  if (fields.expirationTime && fields.expirationTime.getTime() <= expected.nowMs) return 'The sign-in message has expired; request a new nonce';
  if (fields.notBefore && fields.notBefore.getTime() > expected.nowMs) return 'The sign-in message is not valid yet; request a new nonce';
  return null;
}
