// Wallet sign-in with EIP-4361 (SIWE) messages: issue a nonce, verify the signed message, consume it.
import { getAddress, verifyMessage, type Hex, type PublicClient } from 'viem';
import { createSiweMessage, generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { CacheStore } from '../store/cache-store.js';

export const NONCE_TTL_MS = 5 * 60 * 1000;

export interface SignInSettings {
  /** RFC 3986 authority the message is bound to, e.g. `127.0.0.1:8080` or `guard.example.com`. */
  domain: string;
  /** URI of the service, e.g. `http://127.0.0.1:8080`. */
  uri: string;
  chainId: number;
}

export type SignInResult = { ok: true; wallet: string } | { ok: false; detail: string };

const pendingKey = (address: string) => `siwe:${address.toLowerCase()}`;

/**
 * One message is pending per address; asking again replaces it. A failed attempt
 * changes nothing: the nonce is consumed only after the signature checks out.
 */
export class SignIn {
  constructor(
    private readonly store: CacheStore,
    private readonly settings: SignInSettings,
    private readonly client: PublicClient | null,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(address: string): Promise<string> {
    const issuedAt = new Date(this.now());
    const message = createSiweMessage({
      address: getAddress(address.toLowerCase()),
      chainId: this.settings.chainId,
      domain: this.settings.domain,
      uri: this.settings.uri,
      version: '1',
      nonce: generateSiweNonce(),
      issuedAt,
      expirationTime: new Date(issuedAt.getTime() + NONCE_TTL_MS),
      statement: 'Sign in to the trade guardrail. This request costs no gas and approves nothing.',
    });
    await this.store.set(pendingKey(address), message, NONCE_TTL_MS);
    return message;
  }

  async verify(address: string, signature: Hex): Promise<SignInResult> {
    const message = await this.store.get(pendingKey(address));
    if (message === null) return { ok: false, detail: 'No sign-in message is pending for this address; request a nonce first' };
    const fields = parseSiweMessage(message);
    const valid = validateSiweMessage({ message: fields, address: getAddress(address.toLowerCase()), domain: this.settings.domain, time: new Date(this.now()) });
    if (!valid) return { ok: false, detail: 'The sign-in message has expired; request a new nonce' };
    if (!(await this.signatureMatches(address, message, signature))) {
      return { ok: false, detail: 'Signature does not match the pending sign-in message for this address' };
    }
    // Single use: only the caller that removes this exact message signs in.
    const taken = await this.store.take(pendingKey(address));
    if (taken !== message) return { ok: false, detail: 'This sign-in message was already used; request a new nonce' };
    return { ok: true, wallet: address.toLowerCase() };
  }

  /** EOAs are checked locally; otherwise the chain is asked (EIP-1271 smart-contract wallets). */
  private async signatureMatches(address: string, message: string, signature: Hex): Promise<boolean> {
    const account = getAddress(address.toLowerCase());
    const local = await verifyMessage({ address: account, message, signature }).catch(() => false);
    if (local || !this.client) return local;
    return this.client.verifyMessage({ address: account, message, signature }).catch(() => false);
  }
}
