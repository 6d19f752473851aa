// What a bench run records about where it ran: the commit (dirty or not), the node version, the load average.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** `git rev-parse --short HEAD`, with "+dirty" when tracked files differ from it (as `git describe --dirty`). */
export function commitLabel(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPOSITORY, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown';
  }
}

/** The 1, 5 and 15 minute load averages, to two decimals. */
export function loadAverage(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}
