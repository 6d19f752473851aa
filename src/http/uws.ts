// Loads uWebSockets.js and refuses the package's silent fallback to a slow JS server.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Uws from 'uWebSockets.js';

const require = createRequire(import.meta.url);

/**
 * The npm build of uWS catches a failed native load, warns, and returns a pure
 * JS imitation. We load the native binary ourselves and check that the package
 * export is that very module (Node caches native addons by path).
 */
export function loadNativeUws(): typeof Uws {
  const packageMain = require.resolve('uWebSockets.js');
  const binary = join(
    dirname(packageMain),
    '..',
    'binaries',
    `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`,
  );
  let native: unknown;
  try {
    native = require(binary);
  } catch (error) {
    throw new Error(
      `the native uWebSockets.js binary did not load for Node ${process.version} on ${process.platform}-${process.arch}: ` +
        `${(error as Error).message}. Refusing to run on the slow fallback; use Node 20 on glibc Linux.`,
    );
  }
  const exported = require('uWebSockets.js') as typeof Uws;
  if (exported !== native) {
    throw new Error('uWebSockets.js resolved to its JS fallback (UWS_USE_FALLBACK set?); refusing to run');
  }
  return exported;
}
