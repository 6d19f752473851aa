// Thread that owns the audit index files: their I/O is synchronous here, off the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { AuditIndex } from '../src/audit/file/audit-index.js';
import type { IndexMessage, IndexReply, IndexRequest } from '../src/audit/file/index-client.js';
import { openIndex, type IndexInit } from '../src/audit/file/index-recovery.js';
import { FILTER_BYTES } from '../src/audit/file/wallet-filter.js';

/** Pending wallet heads written per turn of this thread's loop, between messages (about 0.2 ms of writes). */
const SLICE = 32;
/**
 * How long heads wait before a run writes them, unless RUN_AT of them wait: a wallet evaluated
 * again within it has its slot written once (audit-index.ts). Questions are answered from the
 * pending heads meanwhile, and recovery replays what the table's mark does not cover.
 */
const HEADS_RUN_MS = 500;

const port = parentPort as NonNullable<typeof parentPort>;
const post = (reply: IndexReply) => port.postMessage(reply);
let index: AuditIndex | undefined;
/** After a failed write the index no longer matches the log: every later request is refused. */
let broken: string | undefined;
let slicing = false;
let timer: NodeJS.Timeout | undefined;

function answer(request: IndexRequest, open: AuditIndex): unknown {
  switch (request.op) {
    case 'heads':
      return open.heads(request.wallets);
    case 'range':
      return open.range(request.first, request.count);
    case 'wallet':
      return open.walletEntries(request.wallet, request.count);
    case 'close':
      open.close(request.identity);
      index = undefined;
      return null;
  }
}

/** Runs an index step; a throw breaks the index for good and is reported once. */
function guarded(step: (open: AuditIndex) => void): void {
  if (broken !== undefined || !index) return;
  try {
    step(index);
  } catch (error) {
    broken = (error as Error).message;
    post({ op: 'failed', message: broken });
  }
}

/** Pending heads go into the table a slice per turn, so a question waits for one slice at most. */
function slice(): void {
  slicing = false;
  guarded((open) => {
    if (open.applyHeads(SLICE)) schedule();
  });
}

/** A run's next slice on the next turn when one is due, else a run on the timer. */
function schedule(): void {
  if (slicing || !index) return;
  if (index.runDue) {
    clearTimeout(timer);
    timer = undefined;
    slicing = true;
    setImmediate(slice);
  } else if (timer === undefined && index.headsPending) {
    timer = setTimeout(() => {
      timer = undefined;
      slice();
    }, HEADS_RUN_MS);
    timer.unref();
  }
}

function handle(message: IndexMessage): void {
  for (const batch of message.appends) guarded((open) => open.arrive(batch));
  schedule();
  const request = message.request;
  if (!request) return;
  try {
    if (broken !== undefined || !index) throw new Error(broken ?? 'the index is closed');
    post({ op: 'answer', id: request.id, value: answer(request, index) });
  } catch (error) {
    post({ op: 'refused', id: request.id, message: (error as Error).message });
  }
}

try {
  const opened = openIndex(workerData as IndexInit);
  index = opened.index;
  // The filter's 4 MiB move to the event loop (transferred, not copied); this thread keeps none.
  const filter = opened.index.walletFilter((workerData as IndexInit).filterBytes ?? FILTER_BYTES).bits;
  port.postMessage({ op: 'ready', ready: opened.ready, filter } satisfies IndexReply, [filter.buffer as ArrayBuffer]);
  port.on('message', handle);
} catch (error) {
  post({ op: 'failed', message: (error as Error).message });
}
