// `npm test`'s first step: name the Debian packages the tests need that are missing, and the one line that installs them.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * What the suite runs that npm does not install: redis-server for the Redis tests, redis-cli to form
 * the test Redis Cluster, wrk for the bench's load generator, Debian's chromium for the pages in a real
 * browser (the path test/support/browser.ts launches). `.ci/run` installs the same packages before `npm test`.
 */
const NEEDS = [
  { what: 'redis-server', package: 'redis-server', found: () => onPath('redis-server') },
  { what: 'redis-cli', package: 'redis-tools', found: () => onPath('redis-cli') },
  { what: 'wrk', package: 'wrk', found: () => onPath('wrk') },
  { what: '/usr/bin/chromium', package: 'chromium', found: () => executable('/usr/bin/chromium') },
];

/** Whether `file` is a regular file this user may run. */
function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether a command of that name is found on PATH, as the tests spawn it. */
function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

const missing = NEEDS.filter((need) => !need.found());
if (missing.length > 0) {
  const packages = [...new Set(missing.map((need) => need.package))];
  process.stderr.write(
    `npm test: not run, missing ${missing.map((need) => need.what).join(', ')}.\n` +
      `The tests start their own Redis servers, load a server with wrk and drive a headless chromium. Install what is missing (Debian), then run npm test again:\n` +
      `  apt-get install ${packages.join(' ')}\n`,
  );
  process.exit(1);
}
