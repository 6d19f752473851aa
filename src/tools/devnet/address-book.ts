// Every address the service reads on the devnet, by name, so a redeployment can be checked against the one in use.
import { createPublicClient, http } from 'viem';
import type { Devnet } from './devnet.js';

/** Registry tokens and feeds, every contract, hostile fixtures and pool ids, keyed by a stable name. */
export function addressBook(devnet: Devnet): Record<string, string> {
  const book: Record<string, string> = {};
  for (const asset of devnet.registry.assets) {
    book[`asset ${asset.symbol}`] = asset.contract_address;
    if (asset.price_feed) book[`feed ${asset.symbol}`] = asset.price_feed;
  }
  const { aggregators, hostile, ...contracts } = devnet.contracts;
  for (const [name, address] of Object.entries(contracts)) book[name] = address;
  for (const [symbol, address] of Object.entries(aggregators)) book[`aggregator ${symbol}`] = address;
  for (const [name, address] of Object.entries(hostile)) book[`hostile ${name}`] = address;
  for (const [symbol, pool] of Object.entries(devnet.pools)) book[`pool ${symbol}`] = pool.poolId;
  return book;
}

/** Null when `next` has exactly the addresses of `inUse`; else which names differ (at most five). */
export function addressMismatch(inUse: Devnet, next: Devnet): string | null {
  const [was, now] = [addressBook(inUse), addressBook(next)];
  const names = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  const differing = names.filter((name) => was[name]?.toLowerCase() !== now[name]?.toLowerCase());
  if (differing.length === 0) return null;
  const shown = differing.slice(0, 5).map((name) => `${name}: ${was[name] ?? 'none'} -> ${now[name] ?? 'none'}`);
  return `${differing.length} address(es) differ: ${shown.join('; ')}`;
}

/** The addresses in use must hold code on the new chain, not only be computed the same way. */
export async function missingCode(devnet: Devnet): Promise<string | null> {
  const client = createPublicClient({ transport: http(devnet.rpcUrl, { retryCount: 0, timeout: 5_000 }) });
  const book = addressBook(devnet);
  const contracts = Object.entries(book).filter(([name, address]) => !name.startsWith('pool ') && address.length === 42);
  const codes = await Promise.all(contracts.map(([, address]) => client.getCode({ address: address as `0x${string}` })));
  const empty = contracts.filter((_, i) => !codes[i] || codes[i] === '0x').map(([name]) => name);
  return empty.length === 0 ? null : `no code at ${empty.slice(0, 5).join(', ')}`;
}
