// CPU a process spent, read from /proc (proc(5)): its main thread (the event loop) and the whole process (worker threads too).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CpuTicks {
  /** utime + stime of /proc/<pid>/task/<pid>/stat: the thread whose id is the pid, node's event loop. */
  mainThread: number;
  /** utime + stime of /proc/<pid>/stat: every thread of the process. */
  process: number;
}

/**
 * utime + stime, in clock ticks, of one stat line. Fields 14 and 15 per proc(5), counted after
 * the command name, which is in parentheses and may itself hold spaces and parentheses: the
 * last ')' ends it.
 */
export function statTicks(line: string): number {
  const close = line.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
  // After ") " the first field is the state, field 3 of proc(5); utime is field 14, stime 15.
  const fields = line.slice(close + 2).trim().split(/\s+/);
  const [utime, stime] = [Number(fields[14 - 3]), Number(fields[15 - 3])];
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error(`no utime and stime in: ${line.slice(0, 80)}`);
  return utime + stime;
}

export function readCpuTicks(pid: number): CpuTicks {
  return {
    mainThread: statTicks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
    process: statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')),
  };
}

/** `getconf CLK_TCK`, the unit of /proc's times (100 on Linux when getconf is missing). */
export function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** Microseconds of CPU per request: the main thread's (`loop`) and the whole process's. */
export interface CpuPerRequest {
  loop: number | null;
  process: number | null;
}

/** CPU per request between two readings; nulls when no request completed. */
export function cpuUsPerRequest(before: CpuTicks, after: CpuTicks, requests: number, ticksPerSecond: number): CpuPerRequest {
  if (requests <= 0) return { loop: null, process: null };
  const us = (ticks: number) => (ticks / ticksPerSecond) * 1e6 / requests;
  return { loop: us(after.mainThread - before.mainThread), process: us(after.process - before.process) };
}
