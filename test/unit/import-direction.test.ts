// The layout holds the design: no import runs up the layer order docs/ARCHITECTURE.md "Import direction" states, and no two folders import each other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The layers, top first, as the fenced `layers` block of ARCHITECTURE.md lists them. */
function layers(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const block = /```layers\n([\s\S]*?)```/.exec(text);
  assert.ok(block, 'docs/ARCHITECTURE.md has a ```layers block');
  return block[1].split('\n').map((line) => line.trim()).filter(Boolean);
}

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

interface Arrow {
  from: string;
  to: string;
}

/** Every relative import of src/ and workers/, as repository paths of the .ts files. */
function arrows(): Arrow[] {
  const found: Arrow[] = [];
  for (const from of [...sources('src'), ...sources('workers')]) {
    for (const match of readFileSync(join(ROOT, from), 'utf8').matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      found.push({ from, to: normalize(join(dirname(from), spec)).replace(/\.js$/, '.ts') });
    }
  }
  return found;
}

/** The index of the longest layer that holds the path; a layer is a folder (ending in /) or one file. */
function layerOf(path: string, order: string[]): number {
  let best = -1;
  order.forEach((layer, index) => {
    const holds = layer.endsWith('/') ? path.startsWith(layer) : path === layer;
    if (holds && (best < 0 || layer.length > order[best].length)) best = index;
  });
  return best;
}

/** A file's folder, or the file itself when it sits at the top of src/ (main.ts and config.ts are layers of their own). */
const folderOf = (path: string): string => (dirname(path) === 'src' ? path : dirname(path));

/** Folders that reach each other through imports: each strongly connected set of two or more (Tarjan). */
function folderCycles(found: Arrow[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of found) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const cycle: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      cycle.push(w);
      if (w === v) break;
    }
    if (cycle.length > 1) cycles.push(cycle.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('import direction (docs/ARCHITECTURE.md "Import direction")', () => {
  const order = layers();
  const found = arrows();

  it('places every source file in a layer', () => {
    const files = [...sources('src'), ...sources('workers')];
    assert.deepEqual(files.filter((file) => layerOf(file, order) < 0), []);
    assert.ok(found.length > 500, `${found.length} imports read`);
  });

  it('has no import that runs up the layers', () => {
    const up = found
      .filter(({ from, to }) => layerOf(to, order) < layerOf(from, order))
      .map(({ from, to }) => `${from} -> ${relative(ROOT, join(ROOT, to))} (${order[layerOf(from, order)]} is below ${order[layerOf(to, order)]})`);
    assert.deepEqual(up, []);
  });

  it('has no two folders that import each other, directly or around a loop', () => {
    assert.deepEqual(folderCycles(found), []);
  });

  it('reads the arrows it checks: a back-arrow and a cycle in a made-up tree are found', () => {
    const made = [{ from: 'src/risk/a.ts', to: 'src/store/b.ts' }, { from: 'src/store/b.ts', to: 'src/risk/c.ts' }];
    assert.ok(layerOf('src/risk/a.ts', order) > layerOf('src/store/b.ts', order));
    assert.deepEqual(folderCycles(made), [['src/risk', 'src/store']]);
  });
});
