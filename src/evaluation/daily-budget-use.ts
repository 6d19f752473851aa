// Scores a trade and, for a wallet with a daily budget, counts an allowed or warned notional against it atomically.
import { DependencyError, failureOf } from '../catalogue/failures.js';
import { addToDay, budgetKey, centsOf, giveBack, parseUsedCents } from '../facts/wallet/daily-budget.js';
import type { RiskInput, RiskResult } from '../risk/types.js';
import type { CacheStore } from '../store/cache-store.js';
import type { ScoreBatcher } from './score-batcher.js';

/** Verdicts judged again on a newer use before the evaluation gives up (budget_contended): each retry means another verdict was counted. */
const MAX_ATTEMPTS = 16;

export interface BudgetedScore {
  /** The input the verdict was judged on: the day's use in it is the one the count started from. */
  input: RiskInput;
  result: RiskResult;
  /**
   * Undoes the count when the verdict is never delivered (a refused payment, a failed record); a
   * no-op when nothing was counted. Never rejects: a count left over refuses more, never allows more.
   */
  giveBack: () => Promise<void>;
}

/** Runs a step that follows the count; when it throws, the count is given back first, then the error goes on. */
export async function orGiveBack<T>(budgeted: BudgetedScore, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await budgeted.giveBack();
    throw error;
  }
}

const NOTHING_COUNTED = async (): Promise<void> => undefined;

/**
 * ARCHITECTURE.md "Fleet limits": the use a verdict is judged on is the use it adds to, so the
 * recorded facts re-derive it and no two verdicts spend the same remainder, on any instance. A deny
 * counts nothing. When another verdict counted first, the trade is judged again on the new use.
 * Rejects when the store fails (the evaluation then ends in an `error` verdict, never an allow).
 * An allow of a wallet without a daily budget is answered at once, without a promise (issue 41).
 */
export function scoreWithinBudget(store: CacheStore, scorer: ScoreBatcher, input: RiskInput): BudgetedScore | Promise<BudgetedScore> {
  const scored = scorer.score(input);
  return scored instanceof Promise ? scored.then((result) => counted(store, scorer, input, result)) : counted(store, scorer, input, scored);
}

/** The scored trade, with its notional counted when the wallet has a daily budget and the trade is not denied. */
function counted(store: CacheStore, scorer: ScoreBatcher, input: RiskInput, result: RiskResult): BudgetedScore | Promise<BudgetedScore> {
  const used = input.wallet.dailyNotionalUsedUsd;
  if (used === undefined || result.decision === 'deny') return { input, result, giveBack: NOTHING_COUNTED };
  return countOnDay(store, scorer, input, result, used);
}

async function countOnDay(store: CacheStore, scorer: ScoreBatcher, first: RiskInput, result0: RiskResult, used: number): Promise<BudgetedScore> {
  let input = first;
  const key = budgetKey(input.trade.wallet, input.nowMs);
  // The text a use of 0 is usually stored as (none); a mismatch costs one read below.
  let seen: string | null = used === 0 ? null : String(centsOf(used));
  let result = result0;
  for (let attempt = 1; ; attempt++) {
    const notional = result.calculated_notional_usd;
    if (await addToDay(store, key, seen, notional)) {
      return { input, result, giveBack: () => giveBack(store, key, notional).catch(() => undefined) };
    }
    if (attempt >= MAX_ATTEMPTS) break;
    seen = await store.get(key);
    input = { ...input, wallet: { ...input.wallet, dailyNotionalUsedUsd: parseUsedCents(seen) / 100 } };
    result = await scorer.score(input);
    if (result.decision === 'deny') return { input, result, giveBack: NOTHING_COUNTED };
  }
  throw new DependencyError(failureOf('budget_contended'), `the daily budget of ${input.trade.wallet} changed under ${MAX_ATTEMPTS} verdicts in a row`);
}
