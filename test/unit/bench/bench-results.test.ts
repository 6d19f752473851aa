// The bench's JSON file: what --compare accepts from an earlier run, and the messages for what it refuses.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseResults, readResults, writeResults } from '../../../bench/results.js';
import { results, row } from '../../support/bench-fixtures.js';

describe('parseResults', () => {
  it('accepts what a run writes', () => {
    const run = results([row('echo', 1, 1, 1)]);
    assert.deepEqual(parseResults(JSON.stringify(run), 'a.json'), run);
  });

  it('names the file and the fault', () => {
    assert.throws(() => parseResults('{', 'a.json'), { message: /^a\.json is not JSON: / });
    assert.throws(() => parseResults('[]', 'a.json'), { message: 'a.json is not a bench result: its "schema" is not "trade-guardrail-bench/1"' });
    assert.throws(() => parseResults('null', 'a.json'), { message: 'a.json is not a bench result: its "schema" is not "trade-guardrail-bench/1"' });
    const schema = 'trade-guardrail-bench/1';
    assert.throws(() => parseResults(JSON.stringify({ schema }), 'a.json'), { message: 'a.json has no "scenarios" list' });
    assert.throws(() => parseResults(JSON.stringify({ schema, scenarios: [{ id: 'echo', ratioToEcho: 1, p99Ms: 1 }] }), 'a.json'), {
      message: 'a.json: scenarios[0] lacks a numeric "requestsPerSecond"',
    });
    assert.throws(() => parseResults(JSON.stringify({ schema, scenarios: [{ requestsPerSecond: 1, ratioToEcho: 1, p99Ms: 1 }] }), 'a.json'), {
      message: 'a.json: scenarios[0] lacks a string "id"',
    });
  });
});

describe('readResults and writeResults', () => {
  it('fails on a file that is not there with its name and the reason', () => {
    assert.throws(() => readResults('/nonexistent/old.json'), { message: 'cannot read /nonexistent/old.json: no such file' });
  });

  it('writes the run under its date and as latest.json, and reads it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    try {
      const run = results([row('echo', 1, 1, 1)]);
      const path = writeResults(join(dir, 'results'), run);
      assert.equal(path, join(dir, 'results', '2026-11-23T10-00-00-000Z.json'));
      assert.deepEqual(readResults(path), run);
      assert.equal(readFileSync(join(dir, 'results', 'latest.json'), 'utf8'), readFileSync(path, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
