// POST /api/v1/simulate-balance: current and post-trade balance, proven by an eth_call state override (no transaction).
import { PATHS } from '../../catalogue/published-facts.js';
import { formatUnits } from 'viem';
import type { BalanceOutcome, BalanceProblem, BalanceSimulator } from '../../facts/chain/balance-simulation.js';
import type { Failure, Logger } from '../../catalogue/failures.js';
import { parseJsonBody } from '../../http/json-body.js';
import { json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import { SimulateBalanceRequest } from '../../schemas/resources.js';
import { compileValidator } from '../../schemas/validator.js';
import { reportFailure } from './unavailable.js';

const validateRequest = compileValidator(SimulateBalanceRequest, 'body');
const NO_CHAIN: Failure = { code: 'chain_not_configured', words: 'balance simulation needs a chain node (RPC_URL or the embedded devnet)' };

/** Which request field each simulation problem is reported at (422 loc). */
const PROBLEM_FIELD: Readonly<Record<BalanceProblem, 'token_address' | 'balance_slot' | 'delta'>> = {
  no_code: 'token_address',
  not_erc20: 'token_address',
  slot_not_found: 'balance_slot',
  below_zero: 'delta',
};

export function simulateBalanceRoutes(simulator: BalanceSimulator | null, log: Logger): Route[] {
  return [{ method: 'post', pattern: PATHS.simulateBalance, readsBody: true, handler: (request) => simulate(simulator, log, request) }];
}

async function simulate(simulator: BalanceSimulator | null, log: Logger, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateRequest);
  if (!parsed.ok) return parsed.response;
  const body = parsed.value;
  if (simulator === null) return unavailable(NO_CHAIN);
  const decimals = body.decimals ?? 18;
  try {
    const result = await simulator.simulate({ token: body.token_address, holder: body.holder, delta: body.delta, decimals, balanceSlot: body.balance_slot ?? null });
    if (!result.ok) {
      const field = PROBLEM_FIELD[result.problem];
      const input = body[field] ?? null;
      return validationFailed([{ loc: ['body', field], msg: `Value error, ${result.message}`, type: 'value_error', input, ctx: { error: result.message } }]);
    }
    return json(200, responseBody(body.token_address, body.holder, body.delta, result.outcome));
  } catch (error) {
    return unavailable(reportFailure(log, request, error));
  }
}

/** SimulateBalanceResponse: amounts in token units with the request's decimals; addresses as sent. */
function responseBody(token: string, holder: string, delta: number, outcome: BalanceOutcome) {
  return {
    token_address: token,
    holder,
    balance_slot: outcome.balanceSlot,
    current: Number(formatUnits(outcome.current, outcome.decimals)),
    delta,
    post_trade: Number(formatUnits(outcome.post, outcome.decimals)),
  };
}

/** `error` says what failed in words and `code` names it; the details are in the log. */
function unavailable(failure: Failure): PlainResponse {
  return json(503, { detail: 'No balance simulation was produced', error: failure.words, code: failure.code });
}
