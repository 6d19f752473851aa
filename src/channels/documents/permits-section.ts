// The methodology's "Trade permits" section: what an allow can carry and how the on-chain guard checks it.
import { PATHS } from '../../catalogue/published-facts.js';
import type { Config } from '../../config.js';
import { PERMIT_DOMAIN, TRADE_PERMIT_TYPES } from '../../evaluation/permits/trade-permit.js';

export function permitsSection(config: Readonly<Config>): string {
  const fields = TRADE_PERMIT_TYPES.TradePermit.map((field) => `${field.type} ${field.name}`).join(', ');
  return [
    '## Trade permits',
    '',
    'With `permit: true` in the request (REST `analyze/*`, the paid `/api/x402/analyze`, the MCP tools), an `allow`',
    'verdict carries `permit`: an EIP-712 typed-data signature that a wallet or an execution router presents to the',
    '`TradePermitGuard` contract before or within its swap. `warn` and `deny` never carry one.',
    '',
    `- Domain: name \`${PERMIT_DOMAIN.name}\`, version \`${PERMIT_DOMAIN.version}\`, the chain ID, and the guard's address as \`verifyingContract\`.`,
    `- \`TradePermit(${fields})\`: the wallet, the registry token, the side (0 buy, 1 sell), the amount evaluated in base units`,
    '  (never rounded up), the notional it was priced at in US cents, an expiry, the verdict\'s `audit_seq` and `audit_hash`',
    '  (so the trade names its audit record), and a random 256-bit nonce.',
    `- Expiry: ${config.permits.ttlSeconds} s after the verdict (\`PERMIT_TTL_SECONDS\`): a permit authorises a trade on facts that age in minutes.`,
    `- The signer's address, the guard and the types are published at \`${PATHS.permitSigner}\` and in the root document`,
    '  (`permit_signer`). The key is `PERMIT_SIGNER_KEY`, or one generated once into `DATA_DIR`; the embedded devnet deploys',
    '  a guard that trusts it. Without a guard (`PERMIT_GUARD_ADDRESS`, or the devnet\'s) a request for a permit is refused',
    '  with HTTP 503 `permits_unavailable` before anything is counted or charged.',
    '- The guard refuses, each with a named error: no signature (`PermitMissing`), past the expiry (`PermitExpired`), a nonce',
    '  already consumed (`PermitNonceUsed`), another wallet (`PermitWalletMismatch`), token (`PermitTokenMismatch`) or side',
    '  (`PermitSideMismatch`), more than the permitted amount (`PermitAmountExceeded`), or a signature not from the published',
    '  signer (`PermitSignatureInvalid`; ERC-1271 signers are accepted). A consumed permit emits `PermitConsumed`.',
    '- Only the permit\'s wallet, or the one router the guard was deployed for (`router()`, which consumes for its own caller),',
    '  may consume a permit; anyone else\'s call reverts with `PermitCallerNotAllowed`, so a permit seen in the mempool cannot',
    '  be spent or cancelled by a third party.',
    '- The notional is signed for routers that price the trade themselves; the guard checks amounts, not prices.',
    '',
  ].join('\n');
}
