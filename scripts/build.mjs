// Compiles the TypeScript into dist/, bundles the service into dist/service.js (scripts/bundle.mjs) and stamps what it built; `--if-stale` skips a build whose stamp still matches, `--check` only tells.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleService } from './bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.build-stamp');
/** What tsc reads (tsconfig.json's `include`), the compiler options, and the installed packages' lock. */
const INPUT_DIRS = ['src', 'workers', 'test', 'bench'];
const INPUT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json', 'scripts/bundle.mjs'];

/** Every input file's path, size and modification time, hashed: an edit, an added or a deleted file changes it. */
function fingerprint() {
  const hash = createHash('sha256');
  const add = (file) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    hash.update(`${relative(ROOT, file)} ${stat ? `${stat.size} ${stat.mtimeMs}` : 'absent'}\n`);
  };
  for (const file of INPUT_FILES) add(join(ROOT, file));
  for (const dir of INPUT_DIRS) {
    const entries = readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true });
    const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
    for (const file of files.sort()) add(file);
  }
  return hash.digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const before = fingerprint();
const fresh = existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === before;
// `--check` only answers: 0 when dist/ is built from the sources as they are, 1 when not.
if (process.argv.includes('--check')) process.exit(fresh ? 0 : 1);
if (ifStale && fresh) process.exit(0);
if (ifStale) process.stderr.write('building dist/ (sources changed since the last build)\n');
// A full build: outputs of deleted sources must not linger in dist/.
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json')], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
await bundleService(ROOT);
// The fingerprint taken before compiling: a source edited during the build makes the next check rebuild.
writeFileSync(STAMP, `${before}\n`);
