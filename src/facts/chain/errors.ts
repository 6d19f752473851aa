// Tells a contract's own refusal (a revert) apart from a node that did not answer, which must fail closed.
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  RawContractError,
  type Hex,
} from 'viem';
import { CHAIN_UNAVAILABLE, DependencyError } from '../../catalogue/failures.js';

/**
 * The node did not answer (down, timing out, refusing) or answered nonsense. Callers turn it
 * into `unavailable` prices, `error` verdicts and HTTP 503, never into an allow.
 */
export class ChainUnavailableError extends DependencyError {
  constructor(what: string, cause?: unknown) {
    super(CHAIN_UNAVAILABLE, `${what} failed: ${describeCause(cause)}${requestOf(cause)}`);
    this.name = 'ChainUnavailableError';
  }
}

/**
 * For the log: the node's scheme, host and port (never its path or query, where providers put
 * keys) and the start of the request, as viem's own messages give them.
 */
function requestOf(cause: unknown): string {
  if (!(cause instanceof BaseError)) return '';
  const request = cause.walk((e) => typeof (e as { url?: unknown }).url === 'string') as (BaseError & { url?: string }) | null;
  if (!request?.url) return '';
  let origin: string;
  try {
    origin = new URL(request.url).origin;
  } catch {
    return '';
  }
  // Every viem request error (HTTP, timeout, WebSocket, RPC) writes the body into its message lines.
  const text = request.metaMessages?.find((line) => line.startsWith('Request body: '))?.slice('Request body: '.length);
  const body = text === undefined ? '' : ` Request body: ${text.slice(0, 200)}`;
  return ` URL: ${origin}${body}`;
}

/** True when the contract itself refused: a revert, or no code / no data to decode. */
export function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const found = error.walk(
    (e) =>
      e instanceof ContractFunctionRevertedError ||
      e instanceof ExecutionRevertedError ||
      e instanceof RawContractError ||
      e instanceof ContractFunctionZeroDataError,
  );
  return found !== null && found !== undefined;
}

/** The raw revert data of a failed call, when the node returned any. */
export function revertData(error: unknown): Hex | null {
  if (!(error instanceof BaseError)) return null;
  const raw = error.walk((e) => e instanceof RawContractError || e instanceof ContractFunctionRevertedError);
  if (raw instanceof RawContractError) return typeof raw.data === 'string' ? raw.data : (raw.data?.data ?? null);
  if (raw instanceof ContractFunctionRevertedError) return raw.raw ?? null;
  const data = (error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null)?.data;
  return data ?? null;
}

/**
 * Runs a read whose revert is an answer (`onRevert`), while a node failure rejects with
 * ChainUnavailableError.
 */
export async function orOnRevert<T, F>(read: Promise<T>, onRevert: F, what: string): Promise<T | F> {
  try {
    return await read;
  } catch (error) {
    if (isRevert(error)) return onRevert;
    throw new ChainUnavailableError(what, error);
  }
}

/** viem's short message and details, with any URL (which may carry an RPC credential) removed. */
export function describeCause(cause: unknown): string {
  if (cause === undefined) return 'no answer';
  const text =
    cause instanceof BaseError
      ? [cause.shortMessage.replace(/\.$/, ''), cause.details].filter((part) => part && part.length > 0).join(': ')
      : cause instanceof Error
        ? cause.message
        : String(cause);
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<rpc>').replace(/\s+/g, ' ').trim().slice(0, 300);
}
