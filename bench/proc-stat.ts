// CPU a server spent, read from /proc (proc(5)): the whole process, each of its threads by kind, and a child process (anvil).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { ThreadKind } from './threads.js';

/** The fields after the command name of one stat line; the name is in parentheses and may hold spaces and parentheses: the last ')' ends it. */
function fieldsAfterName(line: string): { comm: string; fields: string[] } {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
  // After ") " the first field is the state, field 3 of proc(5).
  return { comm: line.slice(open + 1, close), fields: line.slice(close + 2).trim().split(/\s+/) };
}

/** utime + stime, in clock ticks, of one stat line: fields 14 and 15 per proc(5). */
export function statTicks(line: string): number {
  const { fields } = fieldsAfterName(line);
  const [utime, stime] = [Number(fields[14 - 3]), Number(fields[15 - 3])];
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error(`no utime and stime in: ${line.slice(0, 80)}`);
  return utime + stime;
}

/** The command name and parent pid (field 4) of one stat line. */
export function statParent(line: string): { comm: string; ppid: number } {
  const { comm, fields } = fieldsAfterName(line);
  return { comm, ppid: Number(fields[4 - 3]) };
}

function readTicks(path: string): number | null {
  try {
    return statTicks(readFileSync(path, 'utf8'));
  } catch (error) {
    // A thread or process that ended between two readings has no stat file any more.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH') return null;
    throw error;
  }
}

/** The pid of a child of `parent` whose command name is `comm` (the devnet's anvil), or null. */
export function findChild(parent: number, comm: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = statParent(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (stat.ppid === parent && stat.comm === comm) return Number(entry);
    } catch {
      // Gone while the folder was read.
    }
  }
  return null;
}

/** One reading, in clock ticks: the process (all threads, ended ones too), each given thread, a companion process. */
export interface CpuSample {
  process: number;
  threads: Map<number, number>;
  /** The companion process (anvil on the devnet), null when there is none. */
  companion: number | null;
}

export function readCpuSample(pid: number, tids: Iterable<number>, companionPid: number | null): CpuSample {
  const all = readTicks(`/proc/${pid}/stat`);
  if (all === null) throw new Error(`the server under load (pid ${pid}) is gone`);
  const threads = new Map<number, number>();
  for (const tid of tids) {
    const ticks = readTicks(`/proc/${pid}/task/${tid}/stat`);
    if (ticks !== null) threads.set(tid, ticks);
  }
  return { process: all, threads, companion: companionPid === null ? null : readTicks(`/proc/${companionPid}/stat`) };
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

/** Microseconds of CPU per request over the timed run, by thread kind; `process` is all threads, `anvil` the companion process. */
export type CpuPerRequest = Record<ThreadKind | 'others' | 'process' | 'anvil', number | null>;

const NO_CPU: CpuPerRequest = { loop: null, pool: null, index: null, tree: null, others: null, process: null, anvil: null };

/**
 * CPU per request between two readings. A thread counts toward its kind only when both
 * readings saw it; `others` is the process less every counted thread (threads that started or
 * ended during the run land there), held at 0 when the kernel's split of each thread's time
 * into utime and stime, rounded per thread, leaves the sum a tick above the process's. A kind
 * with no thread is null, as is anvil without a companion, and everything when no request completed.
 */
export function cpuUsPerRequest(before: CpuSample, after: CpuSample, kinds: Map<number, ThreadKind>, requests: number, ticksPerSecond: number): CpuPerRequest {
  if (requests <= 0) return { ...NO_CPU };
  const us = (ticks: number) => ((ticks / ticksPerSecond) * 1e6) / requests;
  const byKind = new Map<ThreadKind, number>();
  let counted = 0;
  for (const [tid, kind] of kinds) {
    const [start, end] = [before.threads.get(tid), after.threads.get(tid)];
    if (start === undefined || end === undefined) continue;
    byKind.set(kind, (byKind.get(kind) ?? 0) + end - start);
    counted += end - start;
  }
  const kindUs = (kind: ThreadKind) => (byKind.has(kind) ? us(byKind.get(kind)!) : null);
  const all = after.process - before.process;
  const anvil = before.companion === null || after.companion === null ? null : us(after.companion - before.companion);
  return { loop: kindUs('loop'), pool: kindUs('pool'), index: kindUs('index'), tree: kindUs('tree'), others: us(Math.max(0, all - counted)), process: us(all), anvil };
}
