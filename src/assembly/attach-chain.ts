// Chooses where chain facts come from: a real node (RPC_URL), the embedded devnet, or none (offline).
import type { Address, PublicClient } from 'viem';
import type { Config } from '../config.js';
import type { Devnet } from '../tools/devnet/devnet.js';
import type { DevnetSupervisor } from '../tools/devnet/supervisor.js';
import { loadRegistryFile, registryFromFile, type Registry } from '../facts/registry/registry.js';
import { chainClients } from '../facts/chain/public-client.js';
import { openChainReads, webSocketUrlOf, type ChainReads } from '../facts/chain/chain-reads.js';

export interface ChainContext {
  registry: Registry;
  /** Null when offline: REGISTRY_FILE without RPC_URL, prices from the file's defaults only. */
  client: PublicClient | null;
  /** The same node through a client that batches JSON-RPC (token safety's round trips); null offline. */
  batchClient?: PublicClient | null;
  /** The watched head and the batched reads pinned to it (the evaluation path's chain facts); null offline. */
  reads: ChainReads | null;
  rpcUrl: string | null;
  /** The embedded devnet in use now (after a restart: the new anvil, same addresses); null otherwise. */
  readonly devnet: Devnet | null;
  /** Restarts the embedded devnet when anvil dies; null for RPC_URL and offline. */
  supervisor: DevnetSupervisor | null;
  close(): Promise<void>;
}

/**
 * - RPC_URL set: that node, with the registry from REGISTRY_FILE (required).
 * - REGISTRY_FILE alone: offline, no chain reads (holdings count as none).
 * - neither: the embedded devnet, whose deployment is the registry.
 */
export async function attachChain(config: Readonly<Config>, log: (line: string) => void, permitSigner?: Address): Promise<ChainContext> {
  if (config.rpcWsUrl && !config.rpcUrl) throw new Error('RPC_WS_URL needs RPC_URL: it streams the new heads of that node (the embedded devnet streams its own)');
  if (config.rpcUrl) {
    if (!config.registryFile) throw new Error('RPC_URL needs REGISTRY_FILE: the canonical addresses and feeds of that chain');
    const registry = await loadRegistryFile(config.registryFile);
    // A real node is not ours to restart: the client simply reads again once it answers.
    const { client, batchClient, calls } = chainClients(config.rpcUrl, config.rpcTimeoutMs);
    const reads = await openChainReads(client, registry, { wsUrl: config.rpcWsUrl, calls, log });
    return { registry, client, batchClient, reads, rpcUrl: config.rpcUrl, devnet: null, supervisor: null, close: async () => reads.close() };
  }
  if (config.registryFile) {
    const registry = await loadRegistryFile(config.registryFile);
    return { registry, client: null, reads: null, rpcUrl: null, devnet: null, supervisor: null, close: async () => undefined };
  }
  // Loaded only when needed: the devnet's compiler and deployer cost about a second to import.
  const { DevnetSupervisor } = await import('../tools/devnet/supervisor.js');
  // The devnet's TradePermitGuard trusts this service's permit signer.
  const supervisor = await DevnetSupervisor.start({ log, permitSigner });
  const devnet = supervisor.current;
  const registry = registryFromFile(devnet.registry);
  // While the supervisor restarts anvil the client refuses every read, so evaluations fail closed.
  const { client, batchClient, calls } = chainClients(devnet.rpcUrl, config.rpcTimeoutMs, () => supervisor.downReason());
  // anvil streams new heads on its HTTP port; a restarted anvil takes the same port, and the watch reconnects to it.
  const reads = await openChainReads(client, registry, { wsUrl: webSocketUrlOf(devnet.rpcUrl), refuse: () => supervisor.downReason(), calls, log });
  return {
    registry, client, batchClient, reads, rpcUrl: devnet.rpcUrl, supervisor,
    get devnet() {
      return supervisor.current;
    },
    close: async () => {
      reads.close();
      await supervisor.close();
    },
  };
}
