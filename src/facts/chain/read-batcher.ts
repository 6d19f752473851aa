// Contract reads from every caller in one event-loop turn, sent as one Multicall3 aggregate3 per block (ARCHITECTURE.md "Chain facts by block").
import type { Address, PublicClient } from 'viem';
import { ChainUnavailableError } from './errors.js';
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
 * A burst of a thousand cold wallets becomes a handful of eth_calls instead of a thousand:
 * reads queued in the same turn are flushed together, grouped by the block they are pinned
 * to, split into calls of at most `maxCalls` reads. A node failure rejects every caller in
 * that call with ChainUnavailableError (fail closed); a read that reverts is `ok: false`
 * for its caller alone. While `maxInFlight` calls are out, reads wait; the first to settle sends
 * everything queued (a call per block, per 1,500 reads): under load the next call grows while the
 * node answers, instead of one small call per turn (each costs the service and the node a request
 * whatever it holds; ARCHITECTURE.md "Chain facts by block").
 */
export class ReadBatcher {
  private queued = new Map<bigint, Queued[]>();
  private scheduled = false;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly client: PublicClient,
    private readonly multicall3: Address,
    private readonly maxCalls = DEFAULT_MAX_CALLS,
    private readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
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
    if (!this.scheduled && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    // Full: the reads wait in the queue, and the first call to settle sends them.
    if (this.inFlight >= this.maxInFlight) return;
    const queued = this.queued;
    this.queued = new Map();
    for (const [block, callers] of queued) {
      for (const batch of this.split(callers)) {
        this.inFlight++;
        void this.send(block, batch).finally(() => this.settled());
      }
    }
    this.wakeIfIdle();
  }

  private settled(): void {
    this.inFlight--;
    if (this.queued.size > 0 && !this.scheduled) this.flush();
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.inFlight === 0 && !this.scheduled && this.queued.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
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
      results = await callAggregate3(this.client, this.multicall3, callers.flatMap((caller) => caller.reads), block);
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
}
