// The chain as the evaluation path reads it: the watched head and the batched reads pinned to it.
import { getAddress, type Address, type PublicClient } from 'viem';
import type { Registry } from '../registry/registry.js';
import { ChainHead } from './chain-head.js';
import type { EthCaller } from './eth-caller.js';
import { ReadBatcher } from './read-batcher.js';

export interface ChainReads {
  head: ChainHead;
  reads: ReadBatcher;
  close(): void;
}

export interface ChainReadsOptions {
  /** A WebSocket URL streaming new heads; null polls the node over `client`. */
  wsUrl: string | null;
  refuse?: () => string | null;
  log: (line: string) => void;
  /** The read batcher's eth_calls; `client`'s own by default (chainClients gives the service a leaner one). */
  calls?: EthCaller;
}

/** Watches the registry's tokens (assets, settlement asset, service token) and starts once the first head is read or the node is found not to answer. */
export async function openChainReads(client: PublicClient, registry: Registry, options: ChainReadsOptions): Promise<ChainReads> {
  const tokens: Address[] = registry.assets.filter((asset) => !asset.is_native).map((asset) => getAddress(asset.contract_address));
  if (registry.settlementAsset) tokens.push(getAddress(registry.settlementAsset.address));
  if (registry.serviceToken) tokens.push(getAddress(registry.serviceToken.address));
  const head = new ChainHead(client, {
    tokens, nativeBalances: registry.assets.some((asset) => asset.is_native), wsUrl: options.wsUrl, refuse: options.refuse, log: options.log,
  });
  await head.start();
  return { head, reads: new ReadBatcher(options.calls ?? client, getAddress(registry.multicall3)), close: () => head.close() };
}

/** The node's WebSocket endpoint when it serves one on the HTTP address (anvil does). */
export function webSocketUrlOf(httpUrl: string): string {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
