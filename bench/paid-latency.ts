// What paying costs: one evaluation at a time, free versus paid (verify + settle through the facilitator), on the devnet.
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { PATHS } from '../src/catalogue/published-facts.js';
import { demoWallets } from '../src/tools/devnet/wallets.js';
import type { PaidResult, Percentiles } from './results.js';

const CALLS = Number(process.env.BENCH_PAID_CALLS ?? 200);

/**
 * `CALLS` evaluations in turn on each path, a new wallet each, so every one pays its chain
 * reads: the difference of the percentiles is what verification and settlement add. Payments
 * are signed before the clock starts, as a client would hold one ready. Not a throughput row:
 * each payment is an on-chain transfer from one demo wallet, settled before the next.
 */
export async function measurePaidLatency(base: string, trade: (n: number) => Record<string, unknown>): Promise<PaidResult> {
  process.stderr.write(`measuring x402, ${CALLS} calls one at a time\n`);
  const payer = privateKeyToAccount(demoWallets()[0].privateKey);
  const exact = new ExactEvmScheme(payer);
  const challenge = await fetch(`${base}${PATHS.x402Analyze}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trade(0)) });
  if (challenge.status !== 402) throw new Error(`the paid endpoint answered ${challenge.status}, not a 402 challenge`);
  const terms = ((await challenge.json()) as { accepts: PaymentRequirementsV1[] }).accepts[0];
  const [free, paid]: number[][] = [[], []];
  for (let n = 1; n <= CALLS; n++) {
    free.push(await timed(`${base}${PATHS.analyzeFree}`, trade(2 * n), {}));
    const signed = await exact.createPaymentPayload(1, { ...terms, amount: terms.maxAmountRequired } as never);
    const payment = encodePaymentSignatureHeader({ ...signed, scheme: terms.scheme, network: terms.network } as never);
    paid.push(await timed(`${base}${PATHS.x402Analyze}`, trade(2 * n + 1), { 'x-payment': payment }));
  }
  return { calls: CALLS, free: percentiles(free), paid: percentiles(paid) };
}

async function timed(url: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await answer.arrayBuffer();
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
  return ms;
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}
