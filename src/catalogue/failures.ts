// What failed, told twice: to the client as a code and words (no internals), to the log with the details.
import { BaseError } from 'viem';
import { ERRORS, type ErrorCode } from './errors.js';

/** pino's levels: `error` for a failure, `warn` for what an operator should see, `info` for the rest (the default). */
export type LogLevel = 'info' | 'warn' | 'error';
export type Logger = (line: string, level?: LogLevel) => void;

/** The client's view of a failure: a stable code and a sentence fragment, never a URL or call data. */
export interface Failure {
  code: ErrorCode;
  words: string;
}

/** A catalogued failure in the catalogue's own words. */
export function failureOf(code: ErrorCode): Failure {
  return { code, words: ERRORS[code].message };
}

export const CHAIN_UNAVAILABLE = failureOf('chain_unavailable');
export const STORE_UNAVAILABLE = failureOf('store_unavailable');
export const INTERNAL_ERROR: Failure = { code: 'internal_error', words: 'an internal step failed' };

/**
 * A dependency failure that names itself: the message is the detail for the log, `failure`
 * what the client is told. Subclasses stand for one dependency each (e.g. the cache store).
 */
export class DependencyError extends Error {
  constructor(readonly failure: Failure, detail: string) {
    super(detail);
    this.name = 'DependencyError';
  }
}

/**
 * Any viem error that reaches here is a chain read that failed: reverts that are answers
 * were turned into results where they were read. Everything else is `fallback`.
 */
export function describeFailure(error: unknown, fallback: Failure = INTERNAL_ERROR): Failure {
  if (error instanceof DependencyError) return error.failure;
  if (error instanceof BaseError) return CHAIN_UNAVAILABLE;
  return fallback;
}

/** True when the error is a dependency's (chain node, cache store), not a fault of this service. */
export function isDependencyFailure(error: unknown): boolean {
  return describeFailure(error, INTERNAL_ERROR) !== INTERNAL_ERROR;
}

const MAX_LOG_DETAIL = 2_000;

/**
 * One log line: viem's multi-line messages are folded, and every URL is cut to its scheme
 * and host, since RPC providers carry credentials in the user info, the path or the query.
 */
export function logDetail(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return redactUrls(text).replace(/\s+/g, ' ').trim().slice(0, MAX_LOG_DETAIL);
}

export function redactUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/?#@]*@)?([^\s/?#]*)[^\s"'<>]*/gi, '$1$2');
}

/** `unavailable: <where>: <code>: <detail>`, written where the service writes its other errors. */
export function logFailure(log: Logger, where: string, failure: Failure, error: unknown): void {
  log(`unavailable: ${where}: ${failure.code}: ${logDetail(error)}`, 'error');
}
