// The A2A skills: each takes the message's data part, calls the capability REST and MCP call, and returns the artifact's data.
import { CHANNEL_TIERS } from '../../catalogue/published-facts.js';
import { evaluateOnce, type EntryDeps } from '../../evaluation/entry.js';
import { describeFailure, failureOf, logFailure, type Logger } from '../../catalogue/failures.js';
import type { Registry } from '../../facts/registry/registry.js';
import type { TokenSafetyChecker } from '../../facts/safety/token-safety.js';
import { TokenSafetyRequest } from '../../schemas/resources.js';
import { TradeRequest } from '../../schemas/trade.js';
import { compileValidator, type Validator } from '../../schemas/validator.js';
import { answerError, invalidInput, refused } from './a2a-errors.js';
import { A2A_SKILLS, type A2ASkill } from '../../catalogue/a2a-skills.js';


export interface A2ASkillDeps {
  entry: EntryDeps;
  registry: Registry;
  /** Null offline (no chain node): token safety answers `chain_not_configured`. */
  safety: TokenSafetyChecker | null;
  log: Logger;
}

/** What a skill answers: the artifact's name and its JSON. */
export interface SkillResult {
  name: string;
  data: Record<string, unknown>;
}

const validateTrade = compileValidator(TradeRequest, 'body');
const validateToken = compileValidator(TokenSafetyRequest, 'body');

/** Runs one skill; every refusal is thrown as an A2A error (a2a-errors.ts), so no task ever carries one. */
export async function runSkill(deps: A2ASkillDeps, skill: A2ASkill, data: unknown): Promise<SkillResult> {
  switch (skill) {
    case A2A_SKILLS.evaluate:
      return { name: 'verdict', data: await evaluate(deps, checked(validateTrade, data, 'TradeRequest')) };
    case A2A_SKILLS.tokenSafety:
      return { name: 'token-safety', data: await tokenSafety(deps, checked(validateToken, data, 'token-safety request').contract_address) };
    case A2A_SKILLS.assets:
      return { name: 'assets', data: { assets: deps.registry.listing } };
  }
}

function checked<T>(validate: Validator<T>, data: unknown, what: string): T {
  const result = validate(data);
  if (!result.ok) throw invalidInput(`invalid ${what}: see detail`, result.detail);
  return result.value;
}

/** Tier 1 through the one evaluation entry, in the shared window of unproven calls (ARCHITECTURE.md "Proven callers keep their window"). */
async function evaluate(deps: A2ASkillDeps, trade: TradeRequest): Promise<Record<string, unknown>> {
  const answer = await evaluateOnce(deps.entry, trade, { channel: 'a2a', tier: CHANNEL_TIERS.a2a });
  if (answer.kind !== 'verdict') throw answerError(answer);
  return answer.verdict as unknown as Record<string, unknown>;
}

/** The report REST's token-safety route answers; on failure the caller must not assume the token is safe. */
async function tokenSafety(deps: A2ASkillDeps, contract: string): Promise<Record<string, unknown>> {
  const notSafe = 'no token-safety result was produced; do not assume the token is safe';
  if (deps.safety === null) throw refused('chain_not_configured', `${failureOf('chain_not_configured').words}; ${notSafe}`);
  try {
    return (await deps.safety.check(contract)) as unknown as Record<string, unknown>;
  } catch (error) {
    const failure = describeFailure(error);
    logFailure(deps.log, 'a2a token-safety', failure, error);
    throw refused(failure.code, `${failure.words}; ${notSafe}`);
  }
}
