// What paying costs: one evaluation at a time, free versus paid (verify + settle through the facilitator), on the devnet.
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { demoWallets } from '../src/devnet/wallets.js';

const CALLS = Number(process.env.BENCH_PAID_CALLS ?? 200);

interface Timing {
  label: string;
  ms: number[];
}

/**
 * `CALLS` evaluations in turn on each path, a new wallet each, so every one pays its chain
 * reads: the difference of the percentiles is what verification and settlement add. Payments
 * are signed before the clock starts, as a client would hold one ready.
 */
export async function measurePaidLatency(base: string, trade: (n: number) => Record<string, unknown>): Promise<void> {
  const payer = privateKeyToAccount(demoWallets()[0].privateKey);
  const exact = new ExactEvmScheme(payer);
  const challenge = await fetch(`${base}/api/x402/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trade(0)) });
  if (challenge.status !== 402) throw new Error(`the paid endpoint answered ${challenge.status}, not a 402 challenge`);
  const terms = ((await challenge.json()) as { accepts: PaymentRequirementsV1[] }).accepts[0];
  const free: Timing = { label: 'analyze/free, one at a time', ms: [] };
  const paid: Timing = { label: 'x402/analyze, one at a time', ms: [] };
  for (let n = 1; n <= CALLS; n++) {
    free.ms.push(await timed(`${base}/api/v1/analyze/free`, trade(2 * n), {}));
    const signed = await exact.createPaymentPayload(1, { ...terms, amount: terms.maxAmountRequired } as never);
    const payment = encodePaymentSignatureHeader({ ...signed, scheme: terms.scheme, network: terms.network } as never);
    paid.ms.push(await timed(`${base}/api/x402/analyze`, trade(2 * n + 1), { 'x-payment': payment }));
  }
  const [f, p] = [percentiles(free.ms), percentiles(paid.ms)];
  process.stdout.write(`\nPaid evaluation on the devnet: ${CALLS} calls each, one at a time\n`);
  for (const [timing, stats] of [[free, f], [paid, p]] as const) {
    process.stdout.write(`  ${timing.label.padEnd(30)} p50 ${stats.p50.toFixed(1)} ms  p99 ${stats.p99.toFixed(1)} ms\n`);
  }
  process.stdout.write(`  added by verify + settle         p50 ${(p.p50 - f.p50).toFixed(1)} ms  p99 ${(p.p99 - f.p99).toFixed(1)} ms\n`);
}

async function timed(url: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await answer.arrayBuffer();
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
  return ms;
}

function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}
