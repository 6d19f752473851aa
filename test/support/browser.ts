// Debian's chromium driven by playwright-core, launched one way for every browser test.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

// Debian's package: playwright's own browser downloads cannot reach their host here. .ci/run installs it.
export const CHROMIUM = '/usr/bin/chromium';

/** A headless chromium; a failure, never a skip, when it is not installed: without it the pages are simply untested. */
export async function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
}
