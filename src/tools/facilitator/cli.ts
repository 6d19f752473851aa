// `npm run facilitator`: the service's x402 facilitator on its own, for any EVM node (RPC_URL) and gas key.
import { createPublicClient, http, type Hex } from 'viem';
import { ChainUnavailableError } from '../../facts/chain/errors.js';
import { buildFacilitator } from './facilitator.js';
import { serveFacilitator } from './http-server.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

const USAGE = [
  'usage: RPC_URL=<node> FACILITATOR_PRIVATE_KEY=<0x key that pays the gas> npm run facilitator',
  '  optional: FACILITATOR_HOST (default 127.0.0.1), FACILITATOR_PORT (default 8402), FACILITATOR_RECEIPT_POLL_MS (default 1000)',
  'Then start the service with FACILITATOR_URL=http://<host>:<port>.',
].join('\n');

interface Settings {
  rpcUrl: string;
  privateKey: Hex;
  host: string;
  port: number;
  receiptPollMs: number;
}

function readSettings(env: NodeJS.ProcessEnv): Settings | string {
  const rpcUrl = env.RPC_URL?.trim();
  const privateKey = env.FACILITATOR_PRIVATE_KEY?.trim();
  const port = Number(env.FACILITATOR_PORT?.trim() || 8402);
  const receiptPollMs = Number(env.FACILITATOR_RECEIPT_POLL_MS?.trim() || 1000);
  if (!rpcUrl || !/^https?:\/\/\S+$/.test(rpcUrl)) return 'RPC_URL must be the http(s) URL of an EVM node';
  if (!privateKey || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) return 'FACILITATOR_PRIVATE_KEY must be 0x and 64 hex digits';
  if (!Number.isInteger(port) || port < 0 || port > 65535) return 'FACILITATOR_PORT must be a port number';
  if (!Number.isInteger(receiptPollMs) || receiptPollMs < 10 || receiptPollMs > 60_000) return 'FACILITATOR_RECEIPT_POLL_MS must be 10 to 60000';
  return { rpcUrl, privateKey: privateKey as Hex, host: env.FACILITATOR_HOST?.trim() || '127.0.0.1', port, receiptPollMs };
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  if (typeof settings === 'string') {
    log(`${settings}\n${USAGE}`);
    process.exit(2);
  }
  // The network the scheme is registered for is the node's own chain.
  const chainId = await createPublicClient({ transport: http(settings.rpcUrl) }).getChainId().catch((error: unknown) => {
    throw new ChainUnavailableError('reading the chain id from RPC_URL', error);
  });
  const built = buildFacilitator({ rpcUrl: settings.rpcUrl, chainId, privateKey: settings.privateKey, receiptPollMs: settings.receiptPollMs });
  const running = await serveFacilitator(built.facilitator, settings.host, settings.port, log);
  log(`x402 facilitator listening on ${running.url}: exact scheme on ${built.network}, gas paid by ${built.address}`);
  log('  POST /verify, POST /settle, GET /supported');
  const stop = (signal: string) => {
    log(`${signal}: closing`);
    running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  log(`facilitator failed to start: ${(error as Error).message}`);
  process.exit(1);
});
