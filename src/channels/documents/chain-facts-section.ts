// The methodology's "Chain facts" section: price sources, staleness, deviation, daily P&L, token-safety rules.
import { DEFAULT_ORACLE_MAX_AGE_SECONDS } from '../../facts/registry/registry.js';
import { THRESHOLDS } from '../../risk/weights.js';
import { TAX_DANGER_BPS, TAX_WARN_BPS } from '../../facts/safety/severity.js';
import { MIN_BASE_FEE_WEI, PRIORITY_FEE_WEI } from '../../facts/safety/sell-simulation.js';
import { HOLD_HORIZONS } from '../../facts/safety/simulation-bundle.js';
import { SAFETY_MEASUREMENT as M } from './safety-measurement.js';

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
    'Prices are read once per block, as the block arrives, and kept while it is the newest block the service has seen;',
    'the audit record names the block (number and hash) an oracle price was read at. If the head stream closes or',
    'falls silent for 1.5 s, no kept fact is used until the node confirms the head again.',
    '',
    '### Daily P&L',
    '',
    "The wallet's registry assets plus the settlement stablecoin (1 USD), valued with the prices above, against the",
    'first valuation of its UTC day (kept 26 h in the store). Balances are read in one multicall, shared with the other',
    "evaluations of that moment, and kept until a block's `Transfer` logs touch the wallet. A swap between them is flat",
    'apart from its costs; tokens sent away count as a loss. Holdings that cannot be read make the evaluation an `error`.',
    '',
    '### Token safety (`POST /api/v1/token-safety`)',
    '',
    'Heuristic, not an audit: bytecode (privileged selectors, SELFDESTRUCT, DELEGATECALL, EIP-1967 proxy slots),',
    '`owner()` (renounced; a contract with `getThreshold()` of 2 or more is a multisig), and a simulation of what a buyer',
    'lives through, in one `eth_simulateV1` with state overrides and a small probe contract at fresh throwaway addresses.',
    'A holder acquires the token the way a buyer does (`sell_simulation.method`): `venue_v4`, a swap of 100 units of the',
    "venue's quote token through the pool; else `holder_transfer`, a transfer from a real holder found in the token's",
    'recent `Transfer` logs; else `state_override`, a balance written into the storage slot that holds it. Holders sell',
    `at once and after holding ${horizons()} (time and block locks that open or close within a month),`,
    'each time by two paths: paying the pool by `transfer`, and the way routers sell, by approving the venue\'s router',
    '(SwapHelper), which pulls the tokens with `transferFrom` (`sells[].via`); another holder transfers to a wallet instead of',
    'the pool. Without a pool, selling is a transfer to a wallet, by `transfer` and through an approved spender. Every',
    'simulated call pays a real price: the base fee of the head block, at least',
    `${Number(MIN_BASE_FEE_WEI) / 1e9} gwei, plus a ${Number(PRIORITY_FEE_WEI) / 1e9} gwei tip, from senders funded by state override (\`base_fee_wei\`, \`gas_price_wei\`),`,
    'so a token that tests `tx.gasprice` or `block.basefee` acts as on chain. Buy and sell tax are measured apart',
    '(`buy_tax_bps`, `sell_tax_bps`); the sell tax is measured on every sell and the worst is judged. A cold check',
    'is built for two RPC round trips (JSON-RPC batches; the measurement below shows where more were sent). Owner powers are also found by behaviour: every function the',
    "token's dispatcher offers (but the ERC-20 and Ownable ones) is called by `owner()` with probing arguments against a",
    'fresh holder, in a second simulation in the same batch (`owner_powers`).',
    '',
    `- \`danger\`: no code (\`NO_CODE\`), no \`balanceOf\` (\`NOT_A_TOKEN\`), a holder that acquired the token cannot sell it by one`,
    '  of the two paths, at once and after every hold, or could and cannot after a longer hold, however the block is built',
    `  (\`HONEYPOT\`); a buy tax, or a tax on any sell, above ${TAX_DANGER_BPS / 100}% (\`BUY_TAX_EXTREME\`, \`SELL_TAX_EXTREME\`).`,
    `- \`warn\`: a buy or sell tax above ${TAX_WARN_BPS / 100}% (\`BUY_TAX\`, \`SELL_TAX\`); a sell refused at once but allowed after a hold`,
    '  (`SELL_DELAYED`); a refused buy (`BUY_REVERTS`) or wallet transfer (`TRANSFER_BLOCKED`); no sell could be simulated',
    '  (`SELL_NOT_SIMULATED`); an owner call under a name no list has that gave a holder tokens (`OWNER_CAN_MINT`) or stopped',
    '  its transfers (`OWNER_CAN_BLOCK`); `danger` for any owner call that took a holder\'s tokens (`OWNER_CAN_SEIZE`); blacklist, pause or',
    '  fee-setting functions; mint controlled by one key (an EOA owner, a non-multisig owner contract, or roles);',
    '  an upgradeable proxy; SELFDESTRUCT; DELEGATECALL.',
    '- `safe`: none of these. Privileged functions are `ADVISORY:` (no effect) when `owner()` is renounced, mint when',
    "  the owner is a multisig, and all of them for the registry's own tokens (a regulated issuer mints and may pause).",
    '',
    `#### Measured on a labelled corpus (${M.date}, commit ${M.commit})`,
    '',
    `\`contracts/corpus/\` holds ${M.tokens} labelled tokens: honeypots by owner check, whitelist, blacklist on receipt, max-tx,`,
    'cooldown, block lock, pausing, pool-only sell blocks, false returns, a time bomb, `tx.origin` and an external guard;',
    'gas-price and base-fee gates, `transferFrom` blocks, sell taxes that start six hours after launch, traps that close',
    'three days after launch or after receipt; owner functions under unlisted names that seize, mint or block;',
    'fee-on-transfer at 1-35%, buy-only, sell-only and settable; mintable, role-minted, upgradeable, self-destructing and',
    "delegatecalling tokens; clean tokens with and without an owner; the registry's own tokens and the devnet's fixtures.",
    '`npm run bench:safety` deploys them on the devnet and checks each through this endpoint:',
    '',
    '| labelled \\ judged | safe | warn | danger |',
    '|---|---|---|---|',
    ...(['safe', 'warn', 'danger'] as const).map((label, i) => `| ${label} | ${M.matrix[i].join(' | ')} |`),
    '',
    `Precision of \`danger\`: ${M.dangerPrecision}; recall of \`danger\`: ${M.dangerRecall}. Latency per check: cold p50 ${M.coldMs.p50} ms,`,
    `p99 ${M.coldMs.p99} ms; warm (cached) p50 ${M.warmMs.p50} ms, p99 ${M.warmMs.p99} ms; RPC round trips per cold check: at most`,
    `${M.roundTripsPerColdCheck.max}, ${M.roundTripsPerColdCheck.mean} on average.`,
    'The corpus was written with the checker, so these figures show it does what it claims, not how it fares on',
    'tokens built to evade it.',
    '',
    'Every result is kept 10 minutes as the `contract_risk` of later verdicts (evaluations never simulate inline; a',
    'contract never checked reads `unchecked`). A `danger` result denies every evaluation of the contract for 24 hours.',
    'A check that cannot reach the node answers HTTP 503 with `error`: do not assume the token is safe.',
    '',
  ].join('\n');
}

/** `1 day (7,200 blocks), 7 days (50,400 blocks) and 30 days (216,000 blocks)`. */
function horizons(): string {
  const each = HOLD_HORIZONS.map(({ seconds, blocks }) => {
    const days = Number(seconds / 86_400n);
    return `${days} day${days === 1 ? '' : 's'} (${Number(blocks).toLocaleString('en-US')} blocks)`;
  });
  return `${each.slice(0, -1).join(', ')} and ${each[each.length - 1]}`;
}
