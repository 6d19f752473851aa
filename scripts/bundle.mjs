// Writes dist/service.js: dist/src/main.js and the packages it imports as one ES module, so a start
// parses one file instead of resolving and loading about 1,100 (ARCHITECTURE.md, "The service in one file").
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/**
 * Packages left to node_modules, each for a reason a bundle cannot carry:
 * native addons load their .node file from their own folder; piscina, pino and thread-stream start
 * worker threads from files beside their own code; ioredis names its own folder in error stacks;
 * solc is 8 MB that only a contract compile loads.
 */
const EXTERNAL = [
  'uWebSockets.js', 'lmdb', 'msgpackr-extract', 'fs-ext', 'bufferutil', 'utf-8-validate',
  'piscina', 'pino', 'thread-stream', 'ioredis', 'solc',
];

/**
 * Our modules build paths from import.meta.url (worker files, docs, package.json). In the bundle each
 * keeps the URL of its file in dist/src, written relative to the bundle so a moved checkout still works.
 */
function ownImportMetaUrl(outfile) {
  return {
    name: 'own-import-meta-url',
    setup(esbuild) {
      esbuild.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const fromBundle = `./${relative(dirname(outfile), args.path).split('\\').join('/')}`;
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), loader: 'js' };
      });
    },
  };
}

/** Bundles the service; fails when a bundled package still needs the CommonJS __dirname or __filename, which an ES module lacks. */
export async function bundleService(root) {
  const { build } = await import('esbuild');
  const outfile = join(root, 'dist', 'service.js');
  await build({
    entryPoints: [join(root, 'dist', 'src', 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    plugins: [ownImportMetaUrl(outfile)],
    // CommonJS packages inside the bundle call require() for Node's own modules.
    banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const text = await readFile(outfile, 'utf8');
  const unresolved = text.match(/\b__(dirname|filename)\b/g);
  if (unresolved) throw new Error(`dist/service.js uses ${[...new Set(unresolved)].join(', ')}: leave that package to node_modules (scripts/bundle.mjs EXTERNAL)`);
}
