// Token-safety findings about owner powers that took two calls with time between them.
import type { SequencePower } from './owner-sequences.js';
import { SEQUENCE_GAP } from './owner-sequences.js';
import type { Finding } from './severity.js';
import { durationWords } from './simulation-outcome.js';

/**
 * A power is a power however many calls it takes (ARCHITECTURE.md "Token safety"): a holder named
 * in one owner call and stopped or emptied by calls SEQUENCE_GAP later is `OWNER_CAN_BLOCK`
 * (`warn`) or `OWNER_CAN_SEIZE` (`danger`), as a single call would be. `controller` names the owner.
 */
export function sequenceFindings(sequence: SequencePower | null | undefined, controller: string, listed: boolean): Finding[] {
  if (!sequence) return [];
  const [code, level, words] = sequence.effect === 'took'
    ? ['OWNER_CAN_SEIZE', 'danger', 'took tokens from that holder'] as const
    : ['OWNER_CAN_BLOCK', 'warn', 'stopped that holder from transferring'] as const;
  const gap = durationWords(Math.floor(Number(SEQUENCE_GAP.seconds) / 86_400) * 86_400);
  const steps = `${list(sequence.set)} naming a holder, then more than ${gap} later ${list(sequence.run)}`;
  const issuer = listed ? ' (a registry issuer control)' : '';
  return [{ level: listed ? 'advisory' : level, text: `${code}: called by ${controller} in two steps, ${steps}, ${words}${issuer}` }];
}

function list(names: readonly string[]): string {
  return names.length === 0 ? 'calls that returned data' : names.join(', ');
}
