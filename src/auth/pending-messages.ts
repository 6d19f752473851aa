// The sign-in messages handed out per address and not yet used: a few at once, each single use, each expiring.
import { pendingSignInKey } from '../store/keys.js';
import { DependencyError, failureOf } from '../catalogue/failures.js';
import type { CacheStore } from '../store/cache-store.js';

/** How many messages may wait for a signature per address; past it the oldest is dropped. */
export const MAX_PENDING_MESSAGES = 5;
/** How long a message is valid (its SIWE `Expiration Time`). */
export const NONCE_TTL_MS = 5 * 60 * 1000;
/** The store keeps the list twice as long, so a signature that comes late hears "expired", not "no message". */
const LIST_TTL_MS = 2 * NONCE_TTL_MS;
/** Compare-and-set rounds before giving up on a list that keeps changing under us. */
const ATTEMPTS = 8;

export interface PendingMessage {
  message: string;
  /** The message's expiration, on the service clock (ms). */
  expiresAt: number;
}


/**
 * One JSON list per address, changed only by compare-and-set, so concurrent nonce
 * requests never lose one another's messages and a message is removed by exactly one
 * sign-in. Several wait at once because anyone may ask for a nonce for any address:
 * asking again must not cancel a message its owner is signing.
 */
export class PendingMessages {
  constructor(private readonly store: CacheStore) {}

  /** Adds a message; expired ones are dropped, and the oldest when more than the limit wait. */
  async add(address: string, entry: PendingMessage, nowMs: number): Promise<void> {
    const key = pendingSignInKey(address);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const raw = await this.store.get(key);
      const kept = parseList(raw).filter((pending) => pending.expiresAt > nowMs);
      const next = [...kept, entry].slice(-MAX_PENDING_MESSAGES);
      if (await this.store.compareAndSet(key, raw, JSON.stringify(next), LIST_TTL_MS)) return;
    }
    throw contended();
  }

  /** Every message still held for the address, oldest first, expired ones included (to say so). */
  async list(address: string): Promise<PendingMessage[]> {
    return parseList(await this.store.get(pendingSignInKey(address)));
  }

  /** Single use: true only for the one caller that removed this message. */
  async consume(address: string, message: string): Promise<boolean> {
    const key = pendingSignInKey(address);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const raw = await this.store.get(key);
      const list = parseList(raw);
      if (!list.some((pending) => pending.message === message)) return false;
      const next = list.filter((pending) => pending.message !== message);
      if (await this.store.compareAndSet(key, raw, JSON.stringify(next), LIST_TTL_MS)) return true;
    }
    throw contended();
  }
}

/** Anything unreadable (a value written by an older version) holds no usable message. */
function parseList(raw: string | null): PendingMessage[] {
  if (raw === null) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter(isPendingMessage) : [];
  } catch {
    return [];
  }
}

function isPendingMessage(value: unknown): value is PendingMessage {
  const entry = value as PendingMessage | null;
  return typeof entry?.message === 'string' && typeof entry.expiresAt === 'number';
}

function contended(): DependencyError {
  return new DependencyError(
    failureOf('sign_in_contended'),
    `the pending sign-in list changed ${ATTEMPTS} times in a row`,
  );
}
