// Finds the devnet's Solidity sources and resolves their package imports for solc-js.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Packages whose Solidity files the contracts import, by import prefix. */
const PACKAGE_IMPORTS: Record<string, string> = {
  '@openzeppelin/contracts/': '@openzeppelin/contracts',
  '@uniswap/v4-core/': '@uniswap/v4-core',
};

/** Resolves a package's folder through Node's resolver, so hoisting and workspaces do not matter. */
export function packageRoot(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(packageRoot(name), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The repository root: the nearest folder above this module holding `contracts/` and a
 * package.json. Walking up works both from `dist/src/tools/devnet` and from `src/tools/devnet`.
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'contracts')) && existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('devnet: cannot find the repository root (a folder with contracts/ and package.json)');
    dir = parent;
  }
}

/** The labelled token corpus: compiled and deployed only on demand, never on a devnet start. */
export const CORPUS_DIR = join('contracts', 'corpus');

/**
 * Every `.sol` file under `contracts/` but the corpus, keyed by its solc source unit name
 * (`contracts/...`); with `corpus`, the corpus's files alone.
 */
export function readContractSources(root: string, corpus = false): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {};
  const skipped = join(root, CORPUS_DIR);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !corpus && path === skipped) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.sol')) {
        sources[relative(root, path).split(sep).join('/')] = { content: readFileSync(path, 'utf8') };
      }
    }
  };
  walk(join(root, corpus ? CORPUS_DIR : 'contracts'));
  return sources;
}

/**
 * solc-js's import callback. solc has already normalised relative imports against the
 * importing unit's name, so a unit is either ours (`contracts/...`) or a package path.
 */
export function importResolver(root: string): (path: string) => { contents: string } | { error: string } {
  return (path) => {
    const file = resolveImport(root, path);
    if (file === null) return { error: `devnet: no mapping for import ${path}` };
    try {
      return { contents: readFileSync(file, 'utf8') };
    } catch (error) {
      return { error: `devnet: cannot read ${path}: ${(error as Error).message}` };
    }
  };
}

function resolveImport(root: string, path: string): string | null {
  if (path.split('/').includes('..')) return null;
  if (path.startsWith('contracts/')) return join(root, path);
  for (const [prefix, name] of Object.entries(PACKAGE_IMPORTS)) {
    if (path.startsWith(prefix)) return join(packageRoot(name), path.slice(prefix.length));
  }
  return null;
}

/** The package versions that pin every imported file: part of the build cache key. */
export function importedPackageVersions(): Record<string, string> {
  return Object.fromEntries(Object.values(PACKAGE_IMPORTS).map((name) => [name, packageVersion(name)]));
}
