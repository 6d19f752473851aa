// The service's name, version and license, read once from package.json.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
  license: string;
};

export const SERVICE_NAME = manifest.name;
export const SERVICE_VERSION = manifest.version;
/** An SPDX expression, or npm's `UNLICENSED` when no license is granted. */
export const SERVICE_LICENSE = manifest.license;
