// Pays for one Tier 2 evaluation with x402: `node examples/pay-per-call.mjs` against `npm start` on the devnet.
// BASE_URL (default http://127.0.0.1:8080) and PAYER_KEY (default demo wallet A, a public anvil key) may be set.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const payer = privateKeyToAccount(process.env.PAYER_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

// The challenge is x402 v1 on eip155:4663, a network the library's v1 code does not name:
// its exact EVM scheme signs it once the v1 amount is read as the v2 one.
const exact = new ExactEvmScheme(payer);
const client = new x402Client()
  .registerV1('eip155:4663', {
    scheme: 'exact',
    createPaymentPayload: async (version, terms) => ({
      ...(await exact.createPaymentPayload(version, { ...terms, amount: terms.maxAmountRequired })),
      scheme: terms.scheme,
      network: terms.network,
    }),
  })
  .setSpendControls({ allowedAssets: true }); // the devnet's USDC is not one of the library's known assets
const paidFetch = wrapFetchWithPayment(fetch, client);

const assets = await (await fetch(`${base}/api/v1/assets`)).json();
const tsla = assets.find((asset) => asset.symbol === 'TSLA');
const trade = { wallet: payer.address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 20 };
const answer = await paidFetch(`${base}/api/x402/analyze`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(trade),
});
console.log(answer.status, await answer.json());
const receipt = answer.headers.get('payment-response');
if (receipt) console.log('settled:', decodePaymentResponseHeader(receipt));
