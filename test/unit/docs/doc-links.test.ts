// Every relative link of README.md and docs/*.md reaches a file and, with a `#fragment`, one of its headings.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { headingAnchors, readDocuments, relativeLinks, REPOSITORY } from '../../support/markdown-docs.js';

/** Why a link of `from` to `target` is broken, or null when it resolves. */
function brokenBecause(from: string, target: string): string | null {
  const [file, fragment] = target.split('#') as [string, string | undefined];
  const path = file === '' ? from : normalize(join(dirname(from), decodeURI(file)));
  if (!existsSync(join(REPOSITORY, path))) return `${path} does not exist`;
  if (fragment === undefined) return null;
  if (!path.endsWith('.md')) return `${path} is not Markdown, so it has no heading #${fragment}`;
  return headingAnchors(readFileSync(join(REPOSITORY, path), 'utf8')).has(fragment) ? null : `${path} has no heading whose anchor is #${fragment}`;
}

describe('the documentation links', () => {
  it('reach a file and a heading in it', () => {
    const broken = readDocuments().flatMap(({ path, text }) => relativeLinks(text)
      .map(({ number, target }) => ({ at: `${path}:${number}`, target, why: brokenBecause(path, target) }))
      .filter(({ why }) => why !== null)
      .map(({ at, target, why }) => `${at}: (${target}): ${why}`));
    assert.deepEqual(broken, []);
  });

  it('link every guide in docs/ from the README', () => {
    const documents = readDocuments();
    const readme = documents.find(({ path }) => path === 'README.md')!;
    const linked = new Set(relativeLinks(readme.text).map(({ target }) => normalize(target.split('#')[0])));
    const unlinked = documents.map(({ path }) => path).filter((path) => path !== 'README.md' && !linked.has(path));
    assert.deepEqual(unlinked, []);
  });
});
