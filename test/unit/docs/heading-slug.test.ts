// GitHub's heading anchors, which the documentation's links are checked against.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headingSlugger } from '../../support/heading-slug.js';

describe('headingSlugger', () => {
  it('lower-cases, drops punctuation but hyphens and underscores, and turns spaces into hyphens', () => {
    const slug = headingSlugger();
    assert.deepEqual(
      ['Paying per call (x402)', 'One DATA_DIR, one writer, one epoch', 'Signing in (REST tiers)', 'Re-hashing a record yourself', 'Trade guardrail'].map(slug),
      ['paying-per-call-x402', 'one-data_dir-one-writer-one-epoch', 'signing-in-rest-tiers', 're-hashing-a-record-yourself', 'trade-guardrail'],
    );
  });

  it('keeps the words of code and links and drops their marks', () => {
    const slug = headingSlugger();
    assert.deepEqual(['The `x-preview-tier` header', 'See [the guide](docs/x402.md) *now*'].map(slug), ['the-x-preview-tier-header', 'see-the-guide-now']);
  });

  it('numbers a repeated heading -1, -2, and skips an anchor an earlier heading already took', () => {
    const slug = headingSlugger();
    assert.deepEqual(['Stores', 'Stores', 'Stores-1', 'Stores', 'A  B'].map(slug), ['stores', 'stores-1', 'stores-1-1', 'stores-2', 'a--b']);
  });
});
