// Contract reads from every caller in one event-loop turn, sent as one Multicall3 aggregate3 per block (ARCHITECTURE.md "Chain facts by block").
import { performance } from 'node:perf_hooks';
import type { Address } from 'viem';
import { ChainUnavailableError } from './errors.js';
import { callBalances, MAX_BALANCES_PER_CALL, MAX_HOLDERS_PER_CALL, MAX_TOKENS_PER_CALL } from './balance-reads.js';
import type { EthCaller } from './eth-caller.js';
import { callAggregate3, type ContractRead, type ReadResult } from './multicall.js';

interface Queued {
  reads: readonly ContractRead[];
  what: string;
  resolve: (results: ReadResult[]) => void;
  reject: (error: Error) => void;
}

/** At most this many calls go into one eth_call, so a burst never builds a call the node refuses for gas. */
const DEFAULT_MAX_CALLS = 1_500;
/** eth_calls out before reads wait: while they are, later reads gather into the next, larger call. */
const DEFAULT_MAX_IN_FLIGHT = 2;
/**
 * How long the latest call must have been out before reads queued behind it go in a call beside it. A node that answers
 * within this (a local one) gets one call at a time, each carrying everything that arrived while the one before was
 * out; a slow or distant one still gets its second call, this much later than the turn after the first. Sent the turn
 * after instead, the second call mostly carried a single wallet (ARCHITECTURE.md "Chain facts by block").
 */
export const SECOND_CALL_AFTER_MS = 5;
/**
 * Holders from which balances take the deployless reader: its 1.5 KB of code and a second request
 * cost about what aggregate3's calldata for one or two new wallets does.
 */
export const MIN_BALANCE_HOLDERS = 4;

/**
 * A burst of a thousand cold wallets becomes a handful of eth_calls instead of a thousand:
 * reads queued in the same turn are flushed together, grouped by the block they are pinned
 * to, split into calls of at most `maxCalls` reads. A node failure rejects every caller in
 * that call with ChainUnavailableError (fail closed); a read that reverts is `ok: false`
 * for its caller alone. While `maxInFlight` calls are out, or one sent less than `secondCallAfterMs`
 * ago, reads wait; the first call to settle, or that call coming of age, sends everything queued
 * (a call per block, per 1,500 reads): under load the next call grows while the node answers,
 * instead of one small call per turn (each costs the service and the node a request whatever it
 * holds; ARCHITECTURE.md "Chain facts by block").
 */
export class ReadBatcher {
  private queued = new Map<bigint, Queued[]>();
  private scheduled = false;
  /** When each call out was sent (performance.now()), in the order they were sent. */
  private readonly out: number[] = [];
  /** Set while reads wait for the latest call out to be SECOND_CALL_AFTER_MS old. */
  private secondCall: NodeJS.Timeout | null = null;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly client: EthCaller,
    private readonly multicall3: Address,
    private readonly maxCalls = DEFAULT_MAX_CALLS,
    private readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
    private readonly secondCallAfterMs = SECOND_CALL_AFTER_MS,
  ) {}

  /** The reads' results as of `block`. */
  read(reads: readonly ContractRead[], what: string, block: bigint): Promise<ReadResult[]> {
    return new Promise((resolve, reject) => {
      const atBlock = this.queued.get(block);
      if (atBlock) atBlock.push({ reads, what, resolve, reject });
      else this.queued.set(block, [{ reads, what, resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves once nothing is queued or being read (tests settle on this before counting calls). */
  idle(): Promise<void> {
    if (!this.scheduled && this.out.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    // Full, or waiting for the latest call to age: the reads wait in the queue, and the first call to settle sends them.
    if (this.out.length >= this.maxInFlight || this.secondCall !== null) return;
    if (this.out.length > 0) {
      const wait = this.out[this.out.length - 1] + this.secondCallAfterMs - performance.now();
      if (wait > 0) {
        this.secondCall = setTimeout(() => {
          this.secondCall = null;
          this.flush();
        }, wait).unref();
        return;
      }
    }
    const queued = this.queued;
    this.queued = new Map();
    for (const [block, callers] of queued) {
      for (const batch of this.split(callers)) {
        const sentAt = performance.now();
        this.out.push(sentAt);
        void this.send(block, batch).finally(() => this.settled(sentAt));
      }
    }
    this.wakeIfIdle();
  }

  private settled(sentAt: number): void {
    this.out.splice(this.out.indexOf(sentAt), 1);
    if (this.secondCall !== null) {
      clearTimeout(this.secondCall);
      this.secondCall = null;
    }
    if (this.queued.size > 0 && !this.scheduled) this.flush();
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.out.length === 0 && !this.scheduled && this.queued.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Callers in order, cut where the next one would take a call past `maxCalls` (a caller's reads stay together). */
  private split(callers: Queued[]): Queued[][] {
    const batches: Queued[][] = [];
    let current: Queued[] = [];
    let size = 0;
    for (const caller of callers) {
      if (size > 0 && size + caller.reads.length > this.maxCalls) {
        batches.push(current);
        current = [];
        size = 0;
      }
      current.push(caller);
      size += caller.reads.length;
    }
    if (current.length > 0) batches.push(current);
    return batches;
  }

  private async send(block: bigint, callers: Queued[]): Promise<void> {
    let results: ReadResult[];
    try {
      results = await this.call(callers.flatMap((caller) => caller.reads), block);
    } catch (error) {
      for (const caller of callers) caller.reject(new ChainUnavailableError(caller.what, error));
      return;
    }
    let offset = 0;
    for (const caller of callers) {
      caller.resolve(results.slice(offset, offset + caller.reads.length));
      offset += caller.reads.length;
    }
  }

  /**
   * Balances of MIN_BALANCE_HOLDERS holders or more go through the deployless balance reader, two
   * words of calldata per holder where aggregate3 takes about 180 bytes per balance (a new wallet
   * reads a dozen), beside one aggregate3 call for the other reads; fewer ride in that one call.
   * Either call failing fails them all.
   */
  private async call(reads: ContractRead[], block: bigint): Promise<ReadResult[]> {
    const balances: number[] = [];
    const others: number[] = [];
    const holders = new Set<string>();
    reads.forEach((read, index) => {
      if (read.balance) holders.add(read.balance.holder.toLowerCase());
      (read.balance ? balances : others).push(index);
    });
    if (holders.size < MIN_BALANCE_HOLDERS) return callAggregate3(this.client, this.multicall3, reads, block);
    const results: ReadResult[] = new Array(reads.length);
    const place = (indices: number[]) => (answered: ReadResult[]) => indices.forEach((index, i) => (results[index] = answered[i]));
    const calls: Promise<void>[] = [];
    for (const chunk of holderChunks(balances, reads)) {
      calls.push(callBalances(this.client, chunk.map((index) => reads[index].balance!), block).then(place(chunk)));
    }
    if (others.length > 0) calls.push(callAggregate3(this.client, this.multicall3, others.map((index) => reads[index]), block).then(place(others)));
    await Promise.all(calls);
    return results;
  }
}

/** The balance reads' indices cut so that no call reads more than MAX_BALANCES_PER_CALL balances of MAX_HOLDERS_PER_CALL holders and MAX_TOKENS_PER_CALL tokens. */
function holderChunks(indices: number[], reads: ContractRead[]): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let holders = new Set<string>();
  let tokens = new Set<string | null>();
  for (const index of indices) {
    const { holder, token } = reads[index].balance!;
    const key = holder.toLowerCase();
    const tokenKey = token === null ? null : token.toLowerCase();
    const full = current.length >= MAX_BALANCES_PER_CALL || (!holders.has(key) && holders.size >= MAX_HOLDERS_PER_CALL)
      || (!tokens.has(tokenKey) && tokens.size >= MAX_TOKENS_PER_CALL);
    if (full) {
      chunks.push(current);
      [current, holders, tokens] = [[], new Set(), new Set()];
    }
    current.push(index);
    holders.add(key);
    tokens.add(tokenKey);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
