// The verification worker pool, apart from the scoring pool: raw line bytes go out and come back transferred, never copied.
import { WholePool } from '../../threads/thread-start.js';
import type { ScannedChunk } from './chain-walk.js';
import type { ChunkScan, LinkField } from './chunk-scan.js';

/** Consecutive stored lines, newline-terminated, owning `buffer` outright: it is transferred to a thread. */
export interface Chunk {
  buffer: ArrayBuffer;
  /** Bytes of `buffer` in use. */
  length: number;
}

/**
 * The SHA-256 the threads use: hash-wasm (the design's choice, the same code on
 * every platform), or node:crypto, whose OpenSSL uses the CPU's SHA extensions where
 * it has them.
 */
export type Hasher = 'hash-wasm' | 'node:crypto';

/** What workers/verify.ts receives. */
export interface VerifyTask extends Chunk {
  field: LinkField;
  hasher: Hasher;
}

/** What it sends back: the scan, and the chunk's buffer returned to this thread. */
export interface VerifyResult extends ChunkScan {
  buffer: ArrayBuffer;
  length: number;
}

const WORKER_FILE = new URL('../../../workers/verify.js', import.meta.url).href;

export class VerifyPoolClosedError extends Error {
  override name = 'VerifyPoolClosedError';
  constructor() {
    super('audit verification pool is closed');
  }
}

/**
 * Threads start on the first verification, not at service start: most processes
 * never verify. The pool is separate from scoring so a long verification cannot
 * queue evaluations behind it.
 */
export class VerifyPool {
  private pool: WholePool | undefined;
  private closed = false;

  constructor(readonly threads: number, readonly hasher: Hasher = 'hash-wasm') {}

  scan(chunk: Chunk, field: LinkField): Promise<ScannedChunk> {
    if (this.closed) return Promise.reject(new VerifyPoolClosedError());
    this.pool ??= new WholePool(WORKER_FILE, this.threads);
    const task: VerifyTask = { buffer: chunk.buffer, length: chunk.length, field, hasher: this.hasher };
    return this.pool.run(task, { transferList: [chunk.buffer] }).then((result: VerifyResult) => ({
      ...result,
      bytes: new Uint8Array(result.buffer, 0, result.length),
    }));
  }

  /** Starts the threads ahead of a measured run (benchmarks); verification starts them by itself. */
  async warm(): Promise<void> {
    const line = Buffer.from(`${'0'.repeat(64)} {}\n`);
    const buffer = Buffer.allocUnsafeSlow(line.length);
    buffer.set(line);
    const one = () => this.scan({ buffer: buffer.buffer.slice(0), length: line.length }, 'prev_hash');
    await Promise.all(Array.from({ length: this.threads }, one));
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}
