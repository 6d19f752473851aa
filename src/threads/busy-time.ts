// How busy a worker thread has been: the /metrics figure guardrail_thread_busy_seconds_total.
import type { Worker } from 'node:worker_threads';

/** Seconds the thread's event loop has been busy since it started (its event-loop utilization's active time). */
export function busySeconds(worker: Worker): number {
  return worker.performance.eventLoopUtilization().active / 1000;
}
