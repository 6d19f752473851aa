// `npm run bench:rpc-calls -- [--calls N] [--rounds N] [--bytes N]`: the service's CPU for one eth_call, through viem's
// client (what every other chain read takes) and through the read batcher's ethCaller, against a real anvil on loopback.
// Two calls out at a time, as the batcher sends them; each round times both paths, in turn order flipped round by
// round; prints each path's microseconds of this process's CPU a call (user + system), median and smallest.
import { parseArgs } from 'node:util';
import { chainClients } from '../src/facts/chain/public-client.js';
import { startAnvil } from '../src/tools/devnet/anvil.js';
import type { Hex } from 'viem';
import { median } from './baseline-table.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '8' }, bytes: { type: 'string', default: '3000' } } });
const calls = Number(values.calls);
const rounds = Number(values.rounds);
// A call's data: by default about what the read batcher sends for a few new wallets' balances. To an address with no
// code, so anvil answers at once and the client's own work is what is measured.
const data = `0x${'ab'.repeat(Number(values.bytes))}` as Hex;
const params: [{ to: Hex; data: Hex }, 'latest'] = [{ to: '0x000000000000000000000000000000000000dEaD', data }, 'latest'];

const anvil = await startAnvil({ chainId: 31337, mnemonic: 'test test test test test test test test test test test junk', accounts: 1, blockTimeSeconds: 0 });
try {
  const { client, calls: ethCaller } = chainClients(anvil.rpcUrl, 10_000);
  const paths: Record<string, () => Promise<unknown>> = {
    'viem client.request': () => client.request({ method: 'eth_call', params }),
    'ethCaller (read batcher)': () => ethCaller.request({ method: 'eth_call', params }),
  };
  const timed = async (call: () => Promise<unknown>, n: number) => {
    const before = process.cpuUsage();
    await Promise.all([0, 1].map(async () => {
      for (let i = 0; i < n / 2; i++) await call();
    }));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  for (const call of Object.values(paths)) await timed(call, 1_000);
  const results = new Map<string, number[]>(Object.keys(paths).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const names = Object.keys(paths);
    if (round % 2 === 1) names.reverse();
    for (const name of names) results.get(name)!.push(await timed(paths[name], calls));
  }
  console.log(`eth_call with ${values.bytes} bytes of data, ${calls} calls a round, ${rounds} rounds, two calls out at a time; us of CPU a call`);
  for (const [name, figures] of results) {
    console.log(`${name.padEnd(26)} median ${median(figures)!.toFixed(1).padStart(6)}  smallest ${Math.min(...figures).toFixed(1).padStart(6)}  rounds ${figures.map((f) => f.toFixed(0)).join(' ')}`);
  }
} finally {
  await anvil.close();
}
