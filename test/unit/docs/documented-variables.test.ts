// The environment variables the documentation names are the ones the code reads, and every service variable is documented.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigSchema } from '../../../src/config.js';
import { codeSpans, codeTexts, proseLines, readDocuments, REPOSITORY, tableRows } from '../../support/markdown-docs.js';

const CODE_FOLDERS = ['src', 'workers', 'bench', 'examples', 'scripts'];

/** The text of every source file the repository runs. */
function sources(): string[] {
  return CODE_FOLDERS.flatMap((folder) => readdirSync(join(REPOSITORY, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|cts|mjs|js)$/.test(name))
    .map((name) => readFileSync(join(REPOSITORY, folder, name), 'utf8')));
}

/**
 * Names the code reads from the environment: the service's ConfigSchema, `env.NAME` and
 * `env['NAME']` anywhere, and a quoted name in a file that reads `process.env` (the bench's and the
 * tools' helpers take the name as an argument).
 */
function readFromEnvironment(): Set<string> {
  const names = new Set(Object.keys(ConfigSchema.properties));
  for (const text of sources()) {
    for (const match of text.matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g)) names.add(match[1]);
    if (text.includes('process.env')) for (const match of text.matchAll(/['"]([A-Z][A-Z0-9_]*)['"]/g)) names.add(match[1]);
  }
  return names;
}

/** The first column of every `variable` table; `_TIER2` after `RATE_LIMIT_WALLET_TIER1` is `RATE_LIMIT_WALLET_TIER2`. */
function tabled(text: string): string[] {
  return tableRows(text, 'variable').flatMap(([cell]) => {
    let full = '';
    return codeSpans(cell).map((name) => (name.startsWith('_') ? full.slice(0, full.lastIndexOf('_')) + name : (full = name)));
  });
}

/** Names given a value in code (`NAME=value npm start`), less a snippet's own shell variables (`TSLA=$(...)` then `$TSLA`). */
function assigned(text: string): string[] {
  return codeTexts(text).flatMap((code) => [...code.matchAll(/(?<![\w$])([A-Z][A-Z0-9_]*)=/g)]
    .map((match) => match[1])
    .filter((name) => !new RegExp(`\\$\\{?${name}\\b`).test(code)));
}

describe('the documented environment variables', () => {
  const documents = readDocuments();
  const read = readFromEnvironment();

  it('are read by the code, each one a table lists or a command sets', () => {
    const unknown = documents.flatMap(({ path, text }) => [...new Set([...tabled(text), ...assigned(text)])]
      .filter((name) => !read.has(name))
      .map((name) => `${path}: ${name}`));
    assert.deepEqual(unknown, []);
  });

  it('include every variable of the service configuration, in a variable table', () => {
    const documented = new Set(documents.flatMap(({ text }) => tabled(text)));
    assert.deepEqual(Object.keys(ConfigSchema.properties).filter((name) => !documented.has(name)), []);
  });

  it('quote only upper-case names (variables, reason and error codes) that occur in the code', () => {
    const code = sources().join('\n');
    const missing = documents.flatMap(({ path, text }) => [...new Set(proseLines(text).flatMap(({ line }) => codeSpans(line)).filter((span) => /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(span)))]
      .filter((name) => !new RegExp(`\\b${name}\\b`).test(code))
      .map((name) => `${path}: ${name}`));
    assert.deepEqual(missing, []);
  });
});
