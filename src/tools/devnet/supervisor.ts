// Keeps the embedded devnet alive: restarts anvil when it dies, redeploys at the same addresses, or refuses to resume.
import { addressMismatch, missingCode } from './address-book.js';
import type { Address } from 'viem';
import type { Logger } from '../../catalogue/failures.js';
import { startDevnet, type Devnet, type DevnetOptions } from './devnet.js';
import { FeedKeeper } from './feed-keeper.js';

export type DevnetPhase = 'running' | 'restarting' | 'failed';

export interface DevnetHealth {
  phase: DevnetPhase;
  /** Why the devnet is not running; null while it is. */
  reason: string | null;
  /** Completed restarts since the service started. */
  restarts: number;
  pid: number;
  port: number;
}

export interface SupervisorOptions {
  log: Logger;
  cacheDir?: string;
  /** The address the devnet's TradePermitGuard trusts (the service's permit signer). */
  permitSigner?: Address;
  /** Wait before restart attempt `n` (1-based); default 250 ms doubling up to 10 s. */
  backoffMs?: (attempt: number) => number;
  /** How a devnet is started; tests swap it to make a redeployment differ. Default startDevnet. */
  start?: (options: DevnetOptions) => Promise<Devnet>;
}

const defaultBackoff = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 10_000);

/**
 * The deployment is deterministic (one deployer, fixed order, fresh nonces), so a new anvil
 * on the same port with the same deployment is the same chain to every reader, and the
 * service's registry, caches and clients stay valid. State written to the devnet after
 * start (test trades, price moves) is not replayed. While not running, `downReason()` is
 * set and the chain client refuses every read, so evaluations fail closed.
 */
export class DevnetSupervisor {
  private devnet: Devnet;
  private phase: DevnetPhase = 'running';
  private reason: string | null = null;
  private restarts = 0;
  private closing = false;
  private restarting: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** Renews the fresh feeds' rounds by chain time while the devnet runs (feed-keeper.ts). */
  private readonly keeper: FeedKeeper;

  private constructor(private readonly original: Devnet, private readonly options: SupervisorOptions) {
    this.devnet = original;
    this.watch(original);
    this.keeper = new FeedKeeper(() => (this.phase === 'running' ? this.devnet : null), options.log);
  }

  static async start(options: SupervisorOptions): Promise<DevnetSupervisor> {
    const devnet = await (options.start ?? startDevnet)({ log: options.log, cacheDir: options.cacheDir, permitSigner: options.permitSigner });
    return new DevnetSupervisor(devnet, options);
  }

  /** The devnet in use now: the same addresses as at start, possibly another anvil process. */
  get current(): Devnet {
    return this.devnet;
  }

  /** Null while the devnet runs as deployed; else why not. Cheap: read on every chain request. */
  downReason(): string | null {
    return this.phase === 'running' ? null : this.reason;
  }

  health(): DevnetHealth {
    const { pid, port } = this.devnet.anvil;
    return { phase: this.phase, reason: this.downReason(), restarts: this.restarts, pid, port };
  }

  /** Stops anvil for good and says so: a stop the service asked for is not an unexpected exit. */
  async close(): Promise<void> {
    this.closing = true;
    this.wakeUp?.();
    await Promise.all([this.restarting, this.keeper.close()]);
    const { pid } = this.devnet.anvil;
    await this.devnet.close();
    this.options.log(`devnet: anvil pid ${pid} stopped with the service (${await this.devnet.exited})`);
  }

  private watch(devnet: Devnet): void {
    void devnet.exited.then((how) => this.onExit(devnet, how));
  }

  private onExit(devnet: Devnet, how: string): void {
    if (this.closing || devnet !== this.devnet) return;
    this.phase = 'restarting';
    this.reason = `the embedded devnet (anvil pid ${devnet.anvil.pid}) exited unexpectedly (${how}); restarting it`;
    this.options.log(`devnet: anvil pid ${devnet.anvil.pid} exited unexpectedly (${how}); evaluations fail closed until it is restarted and redeployed`, 'error');
    this.restarting = this.restartLoop().finally(() => (this.restarting = null));
  }

  private async restartLoop(): Promise<void> {
    const backoff = this.options.backoffMs ?? defaultBackoff;
    for (let attempt = 1; !this.closing; attempt++) {
      await this.pause(backoff(attempt));
      if (this.closing || (await this.attempt(attempt)) === 'settled') return;
    }
  }

  /** One restart: a new anvil on the old port, the same deployment, checked before it is used. */
  private async attempt(attempt: number): Promise<'settled' | 'retry'> {
    let next: Devnet;
    try {
      next = await (this.options.start ?? startDevnet)({
        log: this.options.log, cacheDir: this.options.cacheDir, permitSigner: this.options.permitSigner, port: this.devnet.anvil.port,
      });
    } catch (error) {
      this.reason = `the embedded devnet is down; restart attempt ${attempt} failed: ${(error as Error).message.split('\n')[0]}`;
      this.options.log(`devnet: restart attempt ${attempt} failed (${(error as Error).message.split('\n')[0]}); retrying`, 'warn');
      return 'retry';
    }
    if (this.closing) {
      await next.close();
      return 'settled';
    }
    const mismatch = addressMismatch(this.original, next) ?? (await missingCode(next).catch((error: Error) => `code check failed: ${error.message}`));
    if (mismatch) return this.refuse(next, mismatch);
    this.devnet = next;
    this.restarts++;
    this.phase = 'running';
    this.reason = null;
    this.watch(next);
    this.options.log(`devnet: anvil restarted (pid ${next.anvil.pid}, port ${next.anvil.port}) and redeployed at the same addresses; resuming`);
    return 'settled';
  }

  /** A different deployment would silently change every fact: stay down and say so. */
  private async refuse(next: Devnet, mismatch: string): Promise<'settled'> {
    await next.close();
    this.phase = 'failed';
    this.reason = `the redeployed devnet does not match the one in use (${mismatch}); not resuming: restart the service`;
    this.options.log(`devnet: ${this.reason}`, 'error');
    return 'settled';
  }

  /** A backoff that close() cuts short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
