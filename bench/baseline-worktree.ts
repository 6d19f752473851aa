// `--baseline <ref>`: that commit checked out in a temporary git worktree and built, so the bench can run it beside this checkout.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tracked } from './harness.js';
import type { ServiceBuild } from './service.js';

export interface BaselineWorktree {
  build: ServiceBuild;
  /** The full commit the ref named. */
  sha: string;
  /** Removes the worktree and its folder; safe to call twice, and synchronous so a signal handler can call it. */
  remove: () => void;
}

const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit `ref` names in `repo`, or an Error saying it names none. */
export function resolveCommit(repo: string, ref: string): { sha: string; short: string } {
  let sha: string;
  try {
    sha = git(repo, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`--baseline ${ref} names no commit of ${repo}`);
  }
  return { sha, short: git(repo, 'rev-parse', '--short', sha) };
}

/**
 * Checks `ref` out detached in a folder under os.tmpdir() (this checkout and its branch are not
 * touched) and links this checkout's node_modules into it: `npm ci` would take minutes, and a ref
 * that needs other packages fails its build or its start, and says so. Not built yet, so the
 * caller can arrange the removal before the long step.
 */
export function addBaseline(repo: string, ref: string): BaselineWorktree {
  const { sha, short } = resolveCommit(repo, ref);
  const dir = mkdtempSync(join(tmpdir(), `bench-baseline-${short}-`));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(repo, 'worktree', 'remove', '--force', dir);
    } catch {
      // Not added, or already gone: the folder and git's note of it are cleared below.
    }
    rmSync(dir, { recursive: true, force: true });
    git(repo, 'worktree', 'prune');
  };
  try {
    git(repo, 'worktree', 'add', '--detach', dir, sha);
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } catch (error) {
    remove();
    throw error;
  }
  return { build: { dir, commit: short }, sha, remove };
}

/** Builds the worktree with its own scripts/build.mjs, or tsc for a ref older than that script; the output goes to stderr with the bench's progress. */
export function buildBaseline(worktree: BaselineWorktree): Promise<void> {
  const { dir, commit } = worktree.build;
  process.stderr.write(`building ${commit} in ${dir}\n`);
  const script = join(dir, 'scripts', 'build.mjs');
  const args = existsSync(script) ? [script] : [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')];
  return new Promise((resolve, reject) => {
    const child = tracked(spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', process.stderr, process.stderr], detached: true }), true);
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`the build of ${commit} in ${dir} failed (${signal ?? `exit code ${code}`})`))));
  });
}
