// Asks for a verdict with a trade permit and sells 1 TSLA on the devnet's v4 pool through GuardedSwapRouter.
// Run against `npm start` on the devnet with RPC_URL, ROUTER, POOL_MANAGER and STABLECOIN from its start-up summary;
// BASE_URL (default http://127.0.0.1:8080) and TRADER_KEY (default demo wallet A, a public anvil key) may be set.
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256, parseAbi, parseUnits, verifyTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { robinhood } from 'viem/chains';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const { RPC_URL, ROUTER, POOL_MANAGER, STABLECOIN } = process.env;
const unset = Object.entries({ RPC_URL, ROUTER, POOL_MANAGER, STABLECOIN }).filter(([, value]) => !value).map(([name]) => name);
if (unset.length > 0) {
  console.error(`set ${unset.join(', ')}: npm start's summary prints the devnet's RPC URL, GuardedSwapRouter, PoolManager and stablecoin`);
  process.exit(2);
}
const account = privateKeyToAccount(process.env.TRADER_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const chain = { ...robinhood, rpcUrls: { default: { http: [RPC_URL] } } };
const client = createPublicClient({ chain, transport: http() });
const wallet = createWalletClient({ account, chain, transport: http() });

const PERMIT = '(address wallet, address token, uint8 side, uint256 maxAmount, uint256 maxNotionalUsdCents, uint64 expiry, uint64 auditSeq, bytes32 auditHash, uint256 nonce)';
const routerAbi = parseAbi([
  `function swapWithPermit(${PERMIT} permit, bytes signature, address manager, (address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut) returns (uint256 amountOut)`,
]);

// 1. The verdict, asking for a permit. Only an `allow` carries one; a warn or deny says what would be allowed instead.
const tsla = (await (await fetch(`${base}/api/v1/assets`)).json()).find((asset) => asset.symbol === 'TSLA');
const trade = { wallet: account.address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'sell', amount: 1, permit: true };
const verdict = await (await fetch(`${base}/api/v1/analyze/free`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trade) })).json();
if (verdict.decision !== 'allow') throw new Error(`${verdict.decision}: ${verdict.reasons.join('; ')} (max_allowed_amount ${verdict.max_allowed_amount})`);

// 2. The permit as the contract takes it (uint256 values travel as decimal strings), checked against the published signer.
const m = verdict.permit.message;
const permit = { ...m, maxAmount: BigInt(m.maxAmount), maxNotionalUsdCents: BigInt(m.maxNotionalUsdCents), expiry: BigInt(m.expiry), auditSeq: BigInt(m.auditSeq), nonce: BigInt(m.nonce) };
const signer = await (await fetch(`${base}/.well-known/permit-signer.json`)).json();
const genuine = await verifyTypedData({
  address: signer.address, domain: verdict.permit.domain, types: signer.types, primaryType: signer.primary_type, message: permit, signature: verdict.permit.signature,
});
if (!genuine) throw new Error('the permit is not signed by the published signer');

// 3. The swap: the router pays the pool from this wallet, and the guard reverts it unless the permit covers it.
await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: tsla.contract_address, abi: erc20Abi, functionName: 'approve', args: [ROUTER, maxUint256] }) });
const [currency0, currency1] = [tsla.contract_address, STABLECOIN].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
const key = { currency0, currency1, fee: 3000, tickSpacing: 60, hooks: '0x0000000000000000000000000000000000000000' };
const hash = await wallet.writeContract({
  address: ROUTER, abi: routerAbi, functionName: 'swapWithPermit',
  args: [permit, verdict.permit.signature, POOL_MANAGER, key, currency0 === tsla.contract_address, parseUnits('1', 18), 0n],
});
const receipt = await client.waitForTransactionReceipt({ hash });
console.log(receipt.status, 'audit_seq', verdict.audit_seq, 'tx', hash);
