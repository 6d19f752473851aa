// Request bodies for the benchmarks: a registry asset, a different wallet each time.
import { readFileSync } from 'node:fs';

const registry = JSON.parse(readFileSync(new URL('../../registry/sample-registry.json', import.meta.url), 'utf8')) as {
  assets: { symbol: string; contract_address: string }[];
};
const asset = registry.assets[0];

export function walletFor(n: number): string {
  return `0x${(n % 1_000_000).toString(16).padStart(40, '0')}`;
}

export function tradeFields(n: number) {
  return { wallet: walletFor(n), asset: asset.symbol, contract_address: asset.contract_address, side: 'buy', amount: 1 };
}

export function tradeBody(n: number): string {
  return JSON.stringify(tradeFields(n));
}
