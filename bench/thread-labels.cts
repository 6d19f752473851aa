// Preloaded into a benched service (`node -r`): writes which kernel thread runs which worker file, so the bench can split CPU by thread.
//
// Node 20 names every thread of the process "node" in /proc/<pid>/task/<tid>/comm, so the names
// cannot tell the scoring pool from the index thread. `-r` runs in the main thread and again in
// every worker thread (`--import` runs in the main thread only), which gives both halves:
//   main thread   wraps worker_threads.Worker: `{"threadId":n,"file":...}` for each worker made,
//                 and for a Piscina worker the task file its first message names;
//   each worker   `{"threadId":n,"tid":...}` from readlink('/proc/thread-self') ("<pid>/task/<tid>").
// The bench joins them on threadId (bench/threads.ts). Lines go to the file BENCH_THREADS_FILE
// names, only when a thread starts, so nothing runs per request. Without that variable nothing happens.
import { appendFileSync, readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import threads = require('node:worker_threads');

const target = process.env.BENCH_THREADS_FILE;

function note(fields: Record<string, unknown>): void {
  // One short line per append: O_APPEND keeps lines of different threads whole.
  appendFileSync(target!, `${JSON.stringify(fields)}\n`);
}

function fileName(source: unknown): string {
  if (source instanceof URL) return source.protocol === 'file:' ? fileURLToPath(source) : source.href;
  return String(source).slice(0, 200);
}

/** Worker, noting each thread it starts; a Piscina worker's first message names the task file it loads. */
function labelledWorker(Base: typeof threads.Worker): typeof threads.Worker {
  return class LabelledWorker extends Base {
    constructor(...args: ConstructorParameters<typeof threads.Worker>) {
      super(...args);
      note({ threadId: this.threadId, file: fileName(args[0]) });
      // An own property shadows the prototype's once, then removes itself: no cost after the first message.
      this.postMessage = (message: unknown, transfer?: readonly threads.TransferListItem[]) => {
        delete (this as { postMessage?: unknown }).postMessage;
        const task = (message as { filename?: unknown } | null)?.filename;
        if (typeof task === 'string') note({ threadId: this.threadId, file: fileName(task.startsWith('file:') ? new URL(task) : task) });
        return super.postMessage(message, transfer);
      };
    }
  };
}

if (target) {
  if (threads.isMainThread) {
    (threads as { Worker: typeof threads.Worker }).Worker = labelledWorker(threads.Worker);
    // `import { Worker } from 'node:worker_threads'` in the service reads the replaced class.
    syncBuiltinESMExports();
  } else {
    note({ threadId: threads.threadId, tid: Number(readlinkSync('/proc/thread-self').split('/').pop()) });
  }
}
