// Chooses where chain facts come from: a real node (RPC_URL), the embedded devnet, or none (offline).
import type { PublicClient } from 'viem';
import type { Config } from '../config.js';
import { startDevnet, type Devnet } from '../devnet/devnet.js';
import { loadRegistryFile, registryFromFile, type Registry } from '../registry/registry.js';
import { createChainClient } from './public-client.js';

export interface ChainContext {
  registry: Registry;
  /** Null when offline: REGISTRY_FILE without RPC_URL, prices from the file's defaults only. */
  client: PublicClient | null;
  rpcUrl: string | null;
  devnet: Devnet | null;
  close(): Promise<void>;
}

/**
 * - RPC_URL set: that node, with the registry from REGISTRY_FILE (required).
 * - REGISTRY_FILE alone: offline, no chain reads (holdings count as none).
 * - neither: the embedded devnet, whose deployment is the registry.
 */
export async function attachChain(config: Readonly<Config>, log: (line: string) => void): Promise<ChainContext> {
  if (config.rpcUrl) {
    if (!config.registryFile) throw new Error('RPC_URL needs REGISTRY_FILE: the canonical addresses and feeds of that chain');
    const registry = await loadRegistryFile(config.registryFile);
    return { registry, client: createChainClient(config.rpcUrl), rpcUrl: config.rpcUrl, devnet: null, close: async () => undefined };
  }
  if (config.registryFile) {
    return { registry: await loadRegistryFile(config.registryFile), client: null, rpcUrl: null, devnet: null, close: async () => undefined };
  }
  const devnet = await startDevnet({ log });
  const registry = registryFromFile({
    ...devnet.registry,
    service_token: { address: devnet.contracts.serviceToken, decimals: 18 },
    settlement_asset: { address: devnet.contracts.stablecoin, decimals: 6 },
  });
  return { registry, client: createChainClient(devnet.rpcUrl), rpcUrl: devnet.rpcUrl, devnet, close: () => devnet.close() };
}
