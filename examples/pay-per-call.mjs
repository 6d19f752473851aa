// Pays for one Tier 2 evaluation with x402: `node examples/pay-per-call.mjs` against `npm start` on the devnet.
// BASE_URL (default http://127.0.0.1:8080), PAYER_KEY (default demo wallet A, a public anvil key) and
// USDC (default the devnet's stablecoin, fixed by its deployment order) may be set.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const signer = privateKeyToAccount(process.env.PAYER_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const usdc = process.env.USDC ?? '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';

// @x402/fetch's own quick start. The devnet's USDC is none of the library's default assets:
// its spend controls pay it only when allowed, here by address and at most 0.10 (100000 base units).
const client = new x402Client();
registerExactEvmScheme(client, { signer, networks: ['eip155:4663'] });
client.setSpendControls({ allowedAssets: [{ network: 'eip155:4663', asset: usdc, maxAmountPerPayment: '100000' }] });
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

const assets = await (await fetch(`${base}/api/v1/assets`)).json();
const tsla = assets.find((asset) => asset.symbol === 'TSLA');
const trade = { wallet: signer.address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 20 };
const answer = await fetchWithPayment(`${base}/api/x402/analyze`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(trade),
});
console.log(answer.status, await answer.json());
const receipt = answer.headers.get('payment-response');
if (receipt) console.log('settled:', decodePaymentResponseHeader(receipt));
