// The newest block the service has seen, kept current by the node's new-heads stream (or by polling), and which wallets each new block touched (ARCHITECTURE.md "Chain facts by block").
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import { BlockNotFoundError, parseAbiItem, WebSocketRequestError, type Address, type Hex, type PublicClient } from 'viem';
import { ChainUnavailableError, describeCause } from './errors.js';
import { ReadAfterArrival } from './read-after-arrival.js';

/**
 * ws, loaded with the first head stream rather than with this module: a service that polls its node, or reads
 * none (an offline registry), never needs it, and loading it cost about 0.1 s of CPU at every start.
 */
let webSocketClass: typeof WebSocket | undefined;
function openWebSocket(url: string): WebSocket {
  webSocketClass ??= createRequire(import.meta.url)('ws') as typeof WebSocket;
  return new webSocketClass(url);
}

export interface Head {
  number: bigint;
  hash: Hex;
  timestamp: bigint;
}

/** A block header as the node sends it (JSON-RPC hex quantities) or as viem returns it. */
export interface HeaderLike {
  number: bigint | Hex | null;
  hash: Hex | null;
  parentHash: Hex;
  timestamp: bigint | Hex;
}

/** The lowercase addresses a block range touched, or 'all' when the service cannot tell (a reorg, a new chain, a gap too long to scan, a scan that failed). */
export type Touched = ReadonlySet<string> | 'all';

export type HeadListener = (head: Head, touched: Touched) => void;

export interface ChainHeadOptions {
  /** ERC-20s whose Transfer logs mark both parties as touched: the registry's assets, the settlement asset, the service token. */
  tokens: readonly Address[];
  /** Also mark every transaction's sender and recipient (a registry asset is the native coin, whose moves leave no log). */
  nativeBalances: boolean;
  /** A WebSocket URL that streams `newHeads`; null polls `client` instead. */
  wsUrl: string | null;
  /**
   * While this names a reason the node must not be read (the embedded devnet restarting), no head
   * is current; nor, afterwards, is a head applied meanwhile (one mined halfway through the
   * redeployment), until a read confirms the latest block.
   */
  refuse?: () => string | null;
  log: (line: string) => void;
  /** Polling interval without a stream; default 250 ms. */
  pollMs?: number;
  /** How often the stream is asked for the latest block, to prove the node still answers; default 500 ms. */
  probeMs?: number;
  /** With no answer from the node for this long the head is no longer current; default 1,500 ms. */
  silenceMs?: number;
  /** Longer gaps are not scanned: every cached wallet fact is dropped instead; default 256 blocks. */
  maxScanBlocks?: number;
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const RECONNECT_MS = [250, 500, 1_000, 2_000];

/**
 * `current()` is the head while the watch can vouch for it: the stream (or the poll) answered
 * within `silenceMs` and the node may be read. Otherwise `use()` reads the latest block itself,
 * one read shared by every caller waiting at that moment, and rejects when the node does not
 * answer, so evaluations fail closed at once instead of running on facts from a block the
 * service can no longer confirm. Heads are applied one at a time and in order: listeners see
 * each new head with the wallets touched since the previous one.
 */
export class ChainHead {
  private head: Head | null = null;
  /** The hashes of the last heads applied, by number, so a late copy of one is known for what it is. */
  private readonly recent = new Map<bigint, Hex>();
  private lastAnswerAt = -Infinity;
  /** False when the head was applied while `refuse` named a reason: it waits for a confirming read. */
  private headVouched = true;
  private reason = 'the chain head has not been read yet';
  private readonly listeners: HeadListener[] = [];
  private applying: Promise<void> = Promise.resolve();
  private confirming: Promise<Head> | null = null;
  private socket: WebSocket | null = null;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private subscription: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reconnects = 0;
  private closed = false;
  private readonly waiters: { number: bigint; resolve: () => void }[] = [];
  private readonly pollMs: number;
  private readonly probeMs: number;
  private readonly silenceMs: number;
  private readonly maxScanBlocks: bigint;
  private readonly latestReads = new ReadAfterArrival(() => this.confirmLatest());

  constructor(private readonly client: PublicClient, private readonly options: ChainHeadOptions) {
    this.pollMs = options.pollMs ?? 250;
    this.probeMs = options.probeMs ?? 500;
    this.silenceMs = options.silenceMs ?? 1_500;
    this.maxScanBlocks = BigInt(options.maxScanBlocks ?? 256);
  }

  /** Starts watching; resolves once the first head is read, or at once if the node does not answer (the watch keeps trying). */
  async start(): Promise<void> {
    if (this.options.wsUrl) this.connect();
    else this.schedulePoll(0);
    await this.use().catch(() => undefined);
  }

  onHead(listener: HeadListener): void {
    this.listeners.push(listener);
  }

  /** The head, when the watch can vouch that it is the chain's newest block; null otherwise. */
  current(): Head | null {
    if (this.head === null || performance.now() - this.lastAnswerAt > this.silenceMs) return null;
    if (!this.headVouched || this.options.refuse?.()) return null;
    return this.head;
  }

  /** The current head, or the latest block read now; rejects with ChainUnavailableError when the node does not answer. */
  use(): Promise<Head> {
    const head = this.current();
    return head ? Promise.resolve(head) : (this.confirming ??= this.confirm().finally(() => (this.confirming = null)));
  }

  /**
   * The head as a read of the latest block sent after this call finds it, for facts kept per wallet. A rewind announces no
   * block (anvil's `evm_revert`, a reorg to a shorter chain), and the watch's own reads notice it only at their next turn;
   * this read applies it before resolving, so facts read at a block that left the chain are dropped before the caller reads
   * them (issue 39). One read is out at a time, shared by every caller that arrived before it was sent (ReadAfterArrival):
   * under load a round trip per round trip, not per caller. Rejects with ChainUnavailableError when the node does not answer.
   */
  latest(): Promise<Head> {
    return this.latestReads.next();
  }

  /** Resolves once a head at or past `number` has been applied (tests wait on this, not on time). */
  reached(number: bigint): Promise<void> {
    if (this.head !== null && this.head.number >= number) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ number, resolve }));
  }

  /** For the status document: whether the head is current, how it is watched, its number and its age by `nowMs`. */
  status(nowMs: number): { live: boolean; watch: 'stream' | 'poll'; number: number | null; age_seconds: number | null; reason?: string } {
    const live = this.current() !== null;
    const head = this.head;
    return {
      live,
      watch: this.options.wsUrl ? 'stream' : 'poll',
      number: head ? Number(head.number) : null,
      age_seconds: head ? Math.max(0, Math.round(nowMs / 1000) - Number(head.timestamp)) : null,
      ...(live ? {} : { reason: this.options.refuse?.() ?? this.reason }),
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.terminate();
    this.failPending(new Error('the head watch closed'));
  }

  private async confirm(): Promise<Head> {
    // A refusing supervisor refuses this read too (the client is gated), so it fails as every other read does.
    let header: HeaderLike;
    try {
      header = await this.client.getBlock({ blockTag: 'latest' });
    } catch (error) {
      throw new ChainUnavailableError('reading the chain head', error);
    }
    const head = await this.applyLatest(header);
    // Read through the gated client, so not while refused: the head (even one already applied) is confirmed.
    if (this.head === head) this.headVouched = true;
    return head;
  }

  private async confirmLatest(): Promise<Head> {
    const refused = this.options.refuse?.();
    if (refused) throw new ChainUnavailableError('reading the chain head', new Error(refused));
    let header: HeaderLike;
    try {
      header = await this.readLatest();
    } catch (error) {
      throw new ChainUnavailableError('reading the chain head', error);
    }
    this.heard();
    const head = this.head;
    // The common case, the head still the chain's newest: no turn through the queue of heads.
    if (head !== null && header.hash === head.hash && this.headVouched) return head;
    const applied = await this.applyLatest(header);
    if (this.head === applied) this.headVouched = true;
    return applied;
  }

  /**
   * Over the stream's socket while it is subscribed (no HTTP request to build and parse), else over the client. A read
   * lost because the node closed the stream is asked again over the client: the node may still answer there, and if it
   * does not, its error names the node's URL and the request for the log, as every other read's does. A read lost to a
   * silent node is not asked again: that would wait out a second timeout past the read's bound.
   */
  private readLatest(): Promise<HeaderLike> {
    if (this.subscription !== null && this.socket !== null && this.socket.readyState === this.socket.OPEN) {
      return (this.request('eth_getBlockByNumber', ['latest', false]) as Promise<HeaderLike>).catch((error: unknown) => {
        if (error instanceof StreamClosedError) return this.client.getBlock({ blockTag: 'latest' });
        // As viem's own socket errors are, so the log names the node's origin and the request (ChainUnavailableError).
        throw new WebSocketRequestError({ url: this.options.wsUrl!, details: (error as Error).message, body: { method: 'eth_getBlockByNumber', params: ['latest', false] } });
      });
    }
    return this.client.getBlock({ blockTag: 'latest' });
  }

  /** Queues a header; heads are applied in order, each after the previous one's scan. */
  private apply(header: HeaderLike): Promise<Head> {
    return this.queue(() => this.advance(header, false));
  }

  /**
   * Queues a header the node just gave as its latest block. One below the head applied is either a
   * late answer (the stream overtook the read) or the chain rewound under the head (a reorg that
   * shortened it, anvil's `evm_revert`), which announces no new block. The head's own number, read
   * again, tells them apart: a rewind is applied as one, so the facts read for the blocks that left
   * the chain are dropped before the next evaluation reads at that head (issue 39).
   */
  private applyLatest(header: HeaderLike): Promise<Head> {
    return this.queue(async () => {
      const head = this.head;
      const rewound = head !== null && BigInt(header.number!) < head.number && !(await this.stillOnChain(head, header));
      return this.advance(header, rewound);
    });
  }

  private queue(step: () => Promise<Head>): Promise<Head> {
    const applied = this.applying.then(step);
    this.applying = applied.then(() => undefined, () => undefined);
    return applied;
  }

  /** Whether `head` is still the chain's block at its number; a read that fails counts as no, so facts are dropped, not kept. */
  private async stillOnChain(head: Head, latest: HeaderLike): Promise<boolean> {
    try {
      if ((await this.client.getBlock({ blockNumber: head.number })).hash === head.hash) return true;
    } catch (error) {
      if (!(error instanceof BlockNotFoundError)) {
        this.options.log(`chain head: could not read block ${head.number} again (${describeCause(error)}); taking it as rewound and dropping every cached fact`);
        return false;
      }
    }
    this.options.log(`chain head: block ${head.number} (${head.hash}) left the chain, which now ends at block ${BigInt(latest.number!)}; dropping every fact read since`);
    return false;
  }

  /** `rewound`: the chain now ends below the head applied, so even a block seen before is applied again. */
  private async advance(header: HeaderLike, rewound: boolean): Promise<Head> {
    const next: Head = { number: BigInt(header.number!), hash: header.hash!, timestamp: BigInt(header.timestamp) };
    const previous = this.head;
    // A block already applied, arriving late (a probe's or a new subscription's read overtaken by
    // the stream): nothing to do. An older block that is not the one applied is a rewind or reorg.
    if (!rewound && previous !== null && next.number <= previous.number && this.recent.get(next.number) === next.hash) return previous;
    const refused = this.options.refuse?.() != null;
    const touched = await this.touchedSince(previous, next, header.parentHash);
    this.head = next;
    this.headVouched = !refused && !this.options.refuse?.();
    if (touched === 'all') this.recent.clear();
    for (const number of this.recent.keys()) if (number >= next.number) this.recent.delete(number);
    this.recent.set(next.number, next.hash);
    if (this.recent.size > Number(this.maxScanBlocks)) this.recent.delete(this.recent.keys().next().value as bigint);
    for (const listener of this.listeners) listener(next, touched);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].number <= next.number) this.waiters.splice(i, 1)[0].resolve();
    }
    return next;
  }

  /** Who moved tokens in the blocks after `previous` up to `next`: Transfer logs (and transactions, for a native asset). */
  private async touchedSince(previous: Head | null, next: Head, parentHash: Hex): Promise<Touched> {
    if (previous === null) return 'all';
    const span = next.number - previous.number;
    if (span <= 0n || span > this.maxScanBlocks) return 'all';
    try {
      // One block: its parent must be the head applied, and its logs are asked for by hash, so a reorg cannot slip in.
      if (span === 1n && parentHash !== previous.hash) return 'all';
      if (span > 1n) {
        const first = await this.client.getBlock({ blockNumber: previous.number + 1n });
        if (first.parentHash !== previous.hash) return 'all';
      }
      const range = span === 1n ? { blockHash: next.hash } : { fromBlock: previous.number + 1n, toBlock: next.number };
      const [logs, senders] = await Promise.all([
        this.client.getLogs({ address: [...this.options.tokens], event: TRANSFER, ...range }),
        this.options.nativeBalances ? this.transactionParties(previous.number + 1n, next.number) : Promise.resolve([]),
      ]);
      const touched = new Set<string>(senders);
      for (const log of logs) {
        if (log.args.from) touched.add(log.args.from.toLowerCase());
        if (log.args.to) touched.add(log.args.to.toLowerCase());
      }
      return touched;
    } catch (error) {
      this.options.log(`chain head: could not scan blocks ${previous.number + 1n}-${next.number} (${(error as Error).message.split('\n')[0]}); dropping every cached wallet fact`);
      return 'all';
    }
  }

  private async transactionParties(from: bigint, to: bigint): Promise<string[]> {
    const parties: string[] = [];
    for (let number = from; number <= to; number++) {
      const block = await this.client.getBlock({ blockNumber: number, includeTransactions: true });
      for (const tx of block.transactions) {
        parties.push(tx.from.toLowerCase());
        if (tx.to) parties.push(tx.to.toLowerCase());
      }
    }
    return parties;
  }

  private heard(): void {
    this.lastAnswerAt = performance.now();
  }

  // Polling: no stream given, so the latest block is read every `pollMs`.

  private schedulePoll(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.poll(), delayMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      const header = await this.client.getBlock({ blockTag: 'latest' });
      this.heard();
      await this.applyLatest(header);
    } catch (error) {
      this.reason = `the node did not answer the head poll (${describeCause(error)})`;
    }
    this.schedulePoll(this.pollMs);
  }

  // Streaming: eth_subscribe newHeads over a WebSocket, and a probe that proves the node still answers.

  private connect(): void {
    if (this.closed) return;
    const socket = openWebSocket(this.options.wsUrl!);
    this.socket = socket;
    socket.on('open', () => void this.subscribe(socket));
    socket.on('message', (data) => this.onMessage(data.toString()));
    socket.on('error', () => undefined); // 'close' follows and reports
    socket.on('close', () => this.lost(socket, 'the node closed the head stream', true));
  }

  private async subscribe(socket: WebSocket): Promise<void> {
    try {
      this.subscription = String(await this.request('eth_subscribe', ['newHeads']));
      const latest = (await this.request('eth_getBlockByNumber', ['latest', false])) as HeaderLike;
      this.heard();
      this.reconnects = 0;
      await this.applyLatest(latest);
      this.scheduleProbe(socket);
    } catch (error) {
      this.lost(socket, `subscribing to new heads failed (${(error as Error).message})`);
    }
  }

  private scheduleProbe(socket: WebSocket): void {
    if (this.closed || this.socket !== socket) return;
    this.timer = setTimeout(() => void this.probe(socket), this.probeMs);
    this.timer.unref();
  }

  private async probe(socket: WebSocket): Promise<void> {
    const timeout = setTimeout(() => this.lost(socket, 'the node stopped answering the head stream'), this.silenceMs);
    try {
      const latest = (await this.request('eth_getBlockByNumber', ['latest', false])) as HeaderLike;
      clearTimeout(timeout);
      this.heard();
      // A block the stream has not announced (a missed notification, or a rewind, which announces none) is applied from here.
      if (this.head === null || latest.hash !== this.head.hash) await this.applyLatest(latest);
      this.scheduleProbe(socket);
    } catch {
      clearTimeout(timeout);
    }
  }

  private onMessage(text: string): void {
    let message: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { subscription?: string; result?: HeaderLike } };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.method === 'eth_subscription') {
      if (message.params?.subscription !== this.subscription || !message.params.result) return;
      this.heard();
      this.apply(message.params.result).catch(() => undefined);
      return;
    }
    const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message ?? 'the node answered an error'));
    else waiting.resolve(message.result);
  }

  private request(method: string, params: unknown[]): Promise<unknown> {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) return Promise.reject(new Error('the head stream is not open'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** The stream is gone or silent: no head is current from now on, and the watch reconnects. */
  private lost(socket: WebSocket, reason: string, closed = false): void {
    if (this.socket !== socket) return;
    this.socket = null;
    this.subscription = null;
    this.lastAnswerAt = -Infinity;
    this.reason = reason;
    if (this.timer) clearTimeout(this.timer);
    this.failPending(closed ? new StreamClosedError(reason) : new Error(reason));
    socket.terminate();
    if (this.closed) return;
    const delay = RECONNECT_MS[Math.min(this.reconnects++, RECONNECT_MS.length - 1)];
    this.timer = setTimeout(() => this.connect(), delay);
    this.timer.unref();
  }

  private failPending(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** A read the stream lost because the node closed it (not because the node went silent). */
class StreamClosedError extends Error {}
