// The service's name and version, read once from package.json.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export const SERVICE_NAME = manifest.name;
export const SERVICE_VERSION = manifest.version;
