// A file of an installed npm package, read once at start: pages load their scripts from this service, never a CDN.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const resolve = createRequire(import.meta.url).resolve;

/** `specifier` as an import would name it, e.g. `uplot/dist/uPlot.min.css`. */
export function readPackagedFile(specifier: string): Buffer {
  return readFileSync(resolve(specifier));
}
