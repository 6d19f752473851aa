// Token-safety findings about admins beside owner(): who the code lets through where it refuses a stranger, and what they did to a holder.
import type { LiveAdmin } from './admin-powers.js';
import type { Finding } from './severity.js';

const POWER_WORDS = {
  took: ['ADMIN_CAN_SEIZE', 'danger', 'took tokens from a holder it named'],
  gave: ['ADMIN_CAN_MINT', 'warn', 'gave a holder it named new tokens'],
  blocked: ['ADMIN_CAN_BLOCK', 'warn', 'stopped a holder from transferring'],
} as const;

/**
 * An admin is a power whatever owner() says (ARCHITECTURE.md "Token safety"): `OTHER_ADMIN`
 * (`warn`) names it, where it was found and the functions that let it alone through; what those
 * calls did to a holder is `ADMIN_CAN_SEIZE` (`danger`), `ADMIN_CAN_MINT` or `ADMIN_CAN_BLOCK`
 * (`warn`), as the owner's powers are judged: a listed name that mints or blocks is already its
 * capability finding. Excused for the registry's own tokens.
 */
export function adminFindings(admins: readonly LiveAdmin[], listed: boolean, renounced: boolean): Finding[] {
  const level = (base: Finding['level']): Finding['level'] => (listed ? 'advisory' : base);
  const issuer = listed ? ' (a registry issuer control)' : '';
  const beside = renounced ? "; owner() is renounced, but this admin is live" : '';
  return admins.flatMap(({ address, source, functions, powers }) => {
    const findings: Finding[] = [{
      level: level('warn'),
      text: `OTHER_ADMIN: ${address} (${source}), not owner(), gets through ${functions.join(', ')}, which refuse a stranger making the same call${beside}${issuer}`,
    }];
    for (const effect of ['took', 'gave', 'blocked'] as const) {
      const names = powers.filter((power) => power.effect === effect && (power.signature === null || effect === 'took'))
        .map(({ selector, signature }) => signature ?? `the unlisted function ${selector}`);
      if (names.length === 0) continue;
      const [code, base, words] = POWER_WORDS[effect];
      findings.push({ level: level(base), text: `${code}: called by the admin ${address} (${source}), ${names.join(', ')} ${names.length > 1 ? 'each ' : ''}${words}${issuer}` });
    }
    return findings;
  });
}
