// Whether the shared store can be trusted right now: the contract between the lost-store watch and the routes.
import { DependencyError } from '../catalogue/failures.js';

/**
 * `store_lost_state`: the store forgot what this instance saw (an emptied or rewound
 * Redis); nothing read from it can be trusted until an operator acts.
 * `store_unavailable`: the connection dropped and the store has not been checked since
 * (the same code a route gives for a store that does not answer: retry later).
 */
export interface StoreProblem {
  code: 'store_lost_state' | 'store_unavailable';
  detail: string;
}

export interface StoreState {
  /** Null when the store may be used; checked on every guarded request, so it must be cheap (no I/O). */
  problem(): StoreProblem | null;
  /**
   * Bearer tokens issued before this time (ms) are refused: set when an operator accepted
   * a new epoch, because the revocations of the lost store are gone. Null otherwise.
   */
  tokensNotBeforeMs(): number | null;
}

/** Stores without a shared memory to lose (in-memory, or no Redis audit chain) are always usable. */
export const ALWAYS_USABLE: StoreState = { problem: () => null, tokensNotBeforeMs: () => null };

/**
 * Rejection for work refused because the store cannot be trusted; the caller fails closed.
 * A dependency failure, so an evaluation's error verdict and a route's 503 carry its code.
 */
export class StoreStateError extends DependencyError {
  constructor(readonly problem: StoreProblem) {
    super({ code: problem.code, words: `the shared store cannot be trusted: ${problem.detail}` }, `${problem.code}: ${problem.detail}`);
    this.name = 'StoreStateError';
  }
}
