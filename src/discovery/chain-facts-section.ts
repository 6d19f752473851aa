// The methodology's "Chain facts" section: price sources, staleness, deviation, daily P&L, token-safety rules.
import { DEFAULT_ORACLE_MAX_AGE_SECONDS } from '../registry/registry.js';
import { THRESHOLDS } from '../risk/weights.js';
import { TAX_DANGER_BPS, TAX_WARN_BPS } from '../safety/severity.js';

export function chainFactsSection(): string {
  return [
    '## Chain facts',
    '',
    '### Prices',
    '',
    '1. `oracle`: the asset\'s Chainlink-style feed (`latestRoundData`, scaled by the feed\'s `decimals`). A round older',
    `   than ${DEFAULT_ORACLE_MAX_AGE_SECONDS.toLocaleString('en-US')} s by the chain's clock (registry file \`oracle_max_age_seconds\`) is still the oracle price, marked stale (\`PRICE_STALE\`).`,
    '   The venue pool is read in parallel; oracle and venue differing by more than',
    `   ${THRESHOLDS.deviationBps} bps raises \`PRICE_DEVIATION\`.`,
    '2. `venue_v4`: when there is no feed, or it reverts or answers zero or less: the v4 pool (asset against the',
    '   venue\'s USD stablecoin) through StateView `getSlot0`, with both tokens\' decimals; an empty pool gives nothing.',
    '3. `fallback_default`: the registry\'s built-in default price.',
    '4. `unavailable`: none of these. A node that does not answer gives `unavailable` at once, never the default.',
    '',
    'Each read is reused for 2 s and concurrent reads of one feed or pool share one RPC call.',
    '',
    '### Daily P&L',
    '',
    "The wallet's registry assets plus the settlement stablecoin (1 USD), read in one multicall, valued with the",
    'prices above, against the first valuation of its UTC day (kept 26 h in the store). A swap between them is flat',
    'apart from its costs; tokens sent away count as a loss. Holdings that cannot be read make the evaluation an `error`.',
    '',
    '### Token safety (`POST /api/v1/token-safety`)',
    '',
    'Heuristic, not an audit: bytecode (privileged selectors, SELFDESTRUCT, DELEGATECALL, EIP-1967 proxy slots),',
    '`owner()` (renounced; a contract with `getThreshold()` of 2 or more is a multisig), and a live sell of one token',
    'by a fresh throwaway address funded by an `eth_call` state override, through the venue pool (or, without a pool,',
    'a transfer to a second throwaway address).',
    '',
    `- \`danger\`: no code (\`NO_CODE\`), no \`balanceOf\` (\`NOT_A_TOKEN\`), the sell reverts (\`HONEYPOT\`), a sell tax above ${TAX_DANGER_BPS / 100}% (\`SELL_TAX_EXTREME\`).`,
    `- \`warn\`: a sell tax above ${TAX_WARN_BPS / 100}% (\`SELL_TAX\`); no sell could be simulated (\`SELL_NOT_SIMULATED\`); blacklist, pause or`,
    '  fee-setting functions; mint controlled by one key (an EOA owner, a non-multisig owner contract, or roles);',
    '  an upgradeable proxy; SELFDESTRUCT; DELEGATECALL.',
    '- `safe`: none of these. Privileged functions are `ADVISORY:` (no effect) when `owner()` is renounced, mint when',
    "  the owner is a multisig, and all of them for the registry's own tokens (a regulated issuer mints and may pause).",
    '',
    'Every result is kept 10 minutes as the `contract_risk` of later verdicts (evaluations never simulate inline; a',
    'contract never checked reads `unchecked`). A `danger` result denies every evaluation of the contract for 24 hours.',
    'A check that cannot reach the node answers HTTP 503 with `error`: do not assume the token is safe.',
    '',
  ].join('\n');
}
