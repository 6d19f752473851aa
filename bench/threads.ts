// Which kernel thread of a benched service is which: the lines bench/thread-labels.cts wrote, joined into tid -> kind.
import { readFileSync } from 'node:fs';

/**
 * The columns CPU per request is split into. `loop` is the main thread (its tid is the pid);
 * `pool` the Piscina scoring threads (workers/score); `index` the audit index thread
 * (workers/audit-index); `tree` the Merkle tree thread (workers/merkle-tree); every other
 * thread (libuv's pool, V8's compiler and GC helpers, a verification pool) counts as `others`.
 */
export type ThreadKind = 'loop' | 'pool' | 'index' | 'tree';
export const THREAD_KINDS: readonly ThreadKind[] = ['loop', 'pool', 'index', 'tree'];

/** The kind of a worker by the file it runs; null for any other worker (then counted in `others`). */
export function kindOfFile(file: string): Exclude<ThreadKind, 'loop'> | null {
  if (/[/\\]score\.[cm]?js$/.test(file)) return 'pool';
  if (/[/\\]audit-index\.[cm]?js$/.test(file)) return 'index';
  if (/[/\\]merkle-tree\.[cm]?js$/.test(file)) return 'tree';
  return null;
}

/**
 * tid -> kind from the preload's lines: `{threadId, file}` from the main thread (a later line
 * for the same threadId, a Piscina worker's task file, replaces the first) and `{threadId, tid}`
 * from the worker itself. The main thread is `pid` itself. Lines that are not JSON are skipped:
 * the last one may be half written while a thread starts.
 */
export function threadKinds(text: string, pid: number): Map<number, ThreadKind> {
  const files = new Map<number, string>();
  const tids = new Map<number, number>();
  for (const line of text.split('\n')) {
    let entry: { threadId?: unknown; file?: unknown; tid?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry?.threadId !== 'number') continue;
    if (typeof entry.file === 'string') files.set(entry.threadId, entry.file);
    if (typeof entry.tid === 'number') tids.set(entry.threadId, entry.tid);
  }
  const kinds = new Map<number, ThreadKind>([[pid, 'loop']]);
  for (const [threadId, tid] of tids) {
    const kind = kindOfFile(files.get(threadId) ?? '');
    if (kind) kinds.set(tid, kind);
  }
  return kinds;
}

/** The kinds from the file a service's preload wrote; only the main thread when the file is not there (the echo, an old run). */
export function readThreadKinds(path: string | null, pid: number): Map<number, ThreadKind> {
  let text = '';
  try {
    if (path) text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return threadKinds(text, pid);
}
