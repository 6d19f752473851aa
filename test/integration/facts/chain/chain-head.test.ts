// The head watch on a real devnet: which wallets a block touched, per-wallet facts kept until then, a reorg drops everything, a lost stream vouches for nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, type Address, type PublicClient } from 'viem';
import { WalletFactCache } from '../../../../src/facts/chain/block-caches.js';
import type { Touched } from '../../../../src/facts/chain/chain-head.js';
import { openChainReads, webSocketUrlOf, type ChainReads } from '../../../../src/facts/chain/chain-reads.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';
import { loadRegistryFile, type Registry } from '../../../../src/facts/registry/registry.js';
import { walletClientFor } from '../../../support/devnet-helpers.js';
import { waitUntil } from '../../../support/wait-until.js';
import { writeRegistryFile } from '../../../support/chain-support.js';

let devnet: Devnet;
let client: PublicClient;
let registry: Registry;
let reads: ChainReads;
let dir: string;
/** Every head applied since the test began, with what it touched. */
const applied: { number: bigint; touched: Touched }[] = [];
/** What the watch logged (a scan it could not make), shown when an assertion fails. */
const logged: string[] = [];

before(async () => {
  // Blocks only on transactions: these tests name the exact block each head and reorg must be.
  devnet = await startDevnet({ blockTimeSeconds: 0 });
  client = createChainClient(devnet.rpcUrl);
  dir = mkdtempSync(join(tmpdir(), 'chain-head-'));
  registry = await loadRegistryFile(writeRegistryFile(devnet, dir));
  reads = await openChainReads(client, registry, { wsUrl: webSocketUrlOf(devnet.rpcUrl), log: (line) => logged.push(line) });
  reads.head.onHead((head, touched) => applied.push({ number: head.number, touched }));
});

after(async () => {
  reads?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

const stranger = (n: number) => `0x${(0x5eed0000 + n).toString(16).padStart(40, '0')}` as Address;

/** Sends 1 TSLA from the first demo wallet to `to`, and waits until the watch has applied its block. */
async function transfer(to: Address): Promise<bigint> {
  const from = devnet.wallets[0];
  const hash = await walletClientFor(devnet, from.privateKey).writeContract({
    address: registry.bySymbol('TSLA')!.contract_address as Address, abi: erc20Abi, functionName: 'transfer', args: [to, 10n ** 18n],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  await reads.head.reached(receipt.blockNumber);
  return receipt.blockNumber;
}

/** A cache whose reads are counted per wallet and answer the read's block number. */
function countingCache(cap?: number) {
  const cache = new WalletFactCache<bigint>(reads.head, cap);
  const counts = new Map<string, number>();
  const get = async (wallet: string) => {
    const head = await reads.head.use();
    return cache.get(wallet, head, async (at) => {
      counts.set(wallet, (counts.get(wallet) ?? 0) + 1);
      return at.number;
    });
  };
  return { get, count: (wallet: string) => counts.get(wallet) ?? 0 };
}

describe('the chain head on the devnet', () => {
  it('applies each new block with the wallets its Transfer logs touched', async () => {
    const to = stranger(1);
    const block = await transfer(to);
    const entry = applied.find((head) => head.number === block);
    assert.ok(entry, `block ${block} was applied`);
    assert.notEqual(entry.touched, 'all');
    assert.deepEqual([...(entry.touched as Set<string>)].sort(), [devnet.wallets[0].address.toLowerCase(), to.toLowerCase()].sort());
    assert.equal(reads.head.current()?.number, block);
  });

  it('keeps a wallet\'s facts until a block touches it, and only that wallet\'s', async () => {
    const { get, count } = countingCache();
    const [a, b] = [stranger(2).toLowerCase(), stranger(3).toLowerCase()];
    const first = await get(a);
    await get(b);
    assert.equal(await get(a), first);
    assert.deepEqual([count(a), count(b)], [1, 1]);
    const block = await transfer(stranger(2));
    assert.equal(await get(a), block, 'read again at the block that touched it');
    await get(b);
    assert.deepEqual([count(a), count(b)], [2, 1], [...logged, ...applied.slice(-4).map((h) => `${h.number}: ${h.touched === 'all' ? 'all' : [...h.touched].join(',')}`)].join('\n'));
  });

  it('answers a read that a touching block overtook, but does not keep it', async () => {
    const cache = new WalletFactCache<string>(reads.head);
    const wallet = stranger(4).toLowerCase();
    let release!: () => void;
    const head = await reads.head.use();
    const running = cache.get(wallet, head, () => new Promise<string>((resolve) => (release = () => resolve('before the transfer'))));
    await transfer(stranger(4));
    release();
    assert.equal(await running, 'before the transfer');
    const again = await cache.get(wallet, await reads.head.use(), async () => 'after the transfer');
    assert.equal(again, 'after the transfer');
  });

  it('keeps at most its cap of wallets, the least recently used going first', async () => {
    const { get, count } = countingCache(2);
    const [a, b, c] = [5, 6, 7].map((n) => stranger(n).toLowerCase());
    await get(a);
    await get(b);
    await get(a); // a is now the most recently used
    await get(c); // evicts b
    await get(a);
    await get(b);
    assert.deepEqual([count(a), count(b), count(c)], [1, 2, 1]);
  });

  it('follows the chain by polling when the node streams no heads', async () => {
    const polled = await openChainReads(client, registry, { wsUrl: null, log: (line) => logged.push(line) });
    try {
      const seen: { number: bigint; touched: Touched }[] = [];
      polled.head.onHead((head, touched) => seen.push({ number: head.number, touched }));
      const block = await transfer(stranger(10));
      await polled.head.reached(block);
      const entry = seen.find((head) => head.number === block);
      assert.ok(entry && entry.touched !== 'all', JSON.stringify(seen, (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof Set ? [...v] : v)));
      assert.ok((entry.touched as Set<string>).has(stranger(10).toLowerCase()));
      // Its age is counted from the block's own timestamp by the clock the caller gives.
      const { timestamp } = await client.getBlock({ blockNumber: block });
      assert.deepEqual(polled.head.status((Number(timestamp) + 7) * 1000), { live: true, watch: 'poll', number: Number(block), age_seconds: 7 });
    } finally {
      polled.close();
    }
  });

  it('drops every wallet\'s facts when the chain is rewound (a reorg)', async () => {
    const { get, count } = countingCache();
    const wallet = stranger(8).toLowerCase();
    await get(wallet);
    const snapshot = await client.request({ method: 'evm_snapshot' as never }) as string;
    await transfer(stranger(9));
    const beforeRewind = applied.length;
    await client.request({ method: 'evm_revert' as never, params: [snapshot] as never });
    // A new block at the height the reverted one had: same number, another hash.
    await client.request({ method: 'evm_mine' as never });
    const mined = await client.getBlock({ blockTag: 'latest' });
    await reads.head.reached(mined.number);
    await waitUntil(() => reads.head.current()?.hash === mined.hash, 'the head watch applies the block mined after the rewind', 1_000, 5);
    // A poll may see the shorter chain before the new block (the rewind applied as its own head,
    // then the new block on top of it), or only the new block: either way one head drops everything.
    const since = applied.slice(beforeRewind);
    assert.ok(since.some((head) => head.touched === 'all'), `a head after the rewind drops every fact: ${since.map((h) => `${h.number}:${h.touched === 'all' ? 'all' : h.touched.size}`).join(', ')}`);
    await get(wallet);
    assert.equal(count(wallet), 2, 'read again after the reorg, though no Transfer touched it');
  });

  it('answers latest() right after a revert that announced no block with the block the chain ends at, having dropped the facts read at the reverted one', async () => {
    const cache = new WalletFactCache<bigint>(reads.head);
    const wallet = stranger(11).toLowerCase();
    const snapshot = await client.request({ method: 'evm_snapshot' as never }) as string;
    const reverted = await transfer(stranger(11));
    const atReverted = await cache.get(wallet, await reads.head.latest(), async (at) => at.number);
    assert.equal(atReverted, reverted, 'read at the block the transfer was mined in');
    await client.request({ method: 'evm_revert' as never, params: [snapshot] as never });
    // No wait for the watch's next probe: the first caller after the revert already sees the shorter chain.
    const ends = await client.getBlock({ blockTag: 'latest' });
    const head = await reads.head.latest();
    assert.deepEqual([head.number, head.hash], [ends.number, ends.hash]);
    assert.equal(await cache.get(wallet, head, async (at) => at.number), reverted - 1n, 'read again at the block the chain ends at, not kept from the reverted one');
  });

  it('vouches for no head applied while reads were refused, until it reads the latest block again', async () => {
    // The refusal is what the embedded devnet's supervisor gives while it redeploys, which mines blocks of its own.
    let refusal: string | null = null;
    const watched = await openChainReads(client, registry, { wsUrl: webSocketUrlOf(devnet.rpcUrl), refuse: () => refusal, log: (line) => logged.push(line) });
    try {
      await waitUntil(() => watched.head.current() !== null, 'the watch never vouched for a head', 5_000, 5);
      refusal = 'the devnet is redeploying';
      await client.request({ method: 'evm_mine' as never });
      const mined = await client.getBlock({ blockTag: 'latest' });
      await watched.head.reached(mined.number);
      refusal = null;
      assert.equal(watched.head.current(), null, 'a head applied during the refusal is not current once it ends');
      const confirmed = await watched.head.use();
      assert.equal(confirmed.number, mined.number);
      assert.equal(watched.head.current(), confirmed, 'the latest block, read again, is current');
    } finally {
      watched.close();
    }
  });
});
