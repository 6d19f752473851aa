// `npm run devnet`: starts the embedded devnet, writes its registry and address book, serves until interrupted.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deployCorpus } from './deploy-corpus.js';
import { startDevnet, type Devnet } from './devnet.js';
import { devnetSummary, KEY_WARNING } from './summary.js';

async function main(): Promise<void> {
  const registryPath = resolve(process.env.REGISTRY_OUT ?? './data/devnet-registry.json');
  const addressesPath = join(dirname(registryPath), 'devnet-contracts.json');
  const devnet = await startDevnet({ log: (line) => console.log(line) });
  try {
    await writeJson(registryPath, devnet.registry);
    await writeJson(addressesPath, addressBook(devnet));
    // `npm run devnet -- --corpus`: the labelled token-safety corpus too, never on a plain start.
    if (process.argv.includes('--corpus')) {
      const corpusPath = join(dirname(registryPath), 'devnet-corpus.json');
      await writeJson(corpusPath, await deployCorpus(devnet, { log: (line) => console.log(line) }));
      console.log(`Labelled corpus written to ${corpusPath}`);
    }
    console.log(summary(devnet, registryPath, addressesPath).join('\n'));
    const signal = await untilSignal();
    console.log(`devnet: ${signal} received, stopping anvil`);
  } finally {
    await devnet.close();
  }
}

/** Everything a script needs to talk to this devnet; bigints are written as decimal strings. */
function addressBook(devnet: Devnet): unknown {
  return {
    chain_id: devnet.chainId,
    rpc_url: devnet.rpcUrl,
    deployer: devnet.deployer,
    facilitator: devnet.facilitator,
    treasury: devnet.treasury,
    contracts: devnet.contracts,
    pools: devnet.pools,
    stale_feeds: devnet.staleFeeds,
    wallets: devnet.wallets,
    warning: KEY_WARNING,
  };
}

function summary(devnet: Devnet, registryPath: string, addressesPath: string): string[] {
  return [
    `Robinhood Chain devnet (anvil, chain id ${devnet.chainId}) listening at ${devnet.rpcUrl}`,
    `Registry written to ${registryPath}; all contract addresses to ${addressesPath}`,
    ...devnetSummary(devnet),
    'Press Ctrl-C to stop.',
  ];
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item), 2);
  await writeFile(path, `${text}\n`);
}

/** Anvil runs unref'd, so a timer keeps this process up until a signal arrives. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolveSignal) => {
    const keepAlive = setInterval(() => undefined, 2 ** 30);
    const stop = (signal: NodeJS.Signals): void => {
      clearInterval(keepAlive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveSignal(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
