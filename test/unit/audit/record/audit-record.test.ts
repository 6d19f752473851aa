// Audit record sealing: golden vectors re-hashed with node:crypto, RFC 8785 forms, line parsing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { ZERO_HASH, type AuditEntry } from '../../../../src/audit/record/audit-log.js';
import {
  AuditRecordError, canonicalJson, lineHashMatches, parseLine, recordBody, sealRecord,
} from '../../../../src/audit/record/record.js';
import { createSha256Hex, opensslSha256Digest, sha256Hex } from '../../../../src/audit/record/sha256.js';
import { nodeSha256, sampleEntry } from '../../../support/audit-fixtures.js';
import { goldenChain, type GoldenRecord } from '../../../golden/generate-audit-records.js';

// Read from the source tree (dist/test/unit -> test/golden), so the committed file is what is checked.
const goldenUrl = new URL('../../../../../test/golden/audit-records.json', import.meta.url);
const golden = (JSON.parse(readFileSync(goldenUrl, 'utf8')) as { records: GoldenRecord[] }).records;

const TOP_LEVEL_KEYS = [
  'channel', 'decision', 'prev_hash', 'price_source', 'price_usd', 'reasons', 'request',
  'risk_score', 'seq', 'tier', 'ts', 'wallet', 'wallet_prev_hash',
];

before(async () => {
});

describe('golden audit records', () => {
  it('hash to the stored values with plain node:crypto over the canonical bytes', () => {
    assert.equal(golden.length, 5);
    for (const vector of golden) assert.equal(nodeSha256(Buffer.from(vector.canonical, 'utf8')), vector.hash);
  });

  it('are exactly what the generator produces today', () => {
    assert.deepEqual(goldenChain(), golden);
  });

  it('form one global chain and per-wallet chains', () => {
    assert.deepEqual(golden.map((v) => v.prev_hash), [ZERO_HASH, ...golden.slice(0, 4).map((v) => v.hash)]);
    assert.deepEqual(golden.map((v) => v.wallet_prev_hash), [ZERO_HASH, ZERO_HASH, golden[0].hash, ZERO_HASH, golden[1].hash]);
  });

  it('are reproduced byte for byte by sealRecord', () => {
    for (const v of golden) {
      const { record, line } = sealRecord(v.entry, v.seq, v.ts, v.prev_hash, v.wallet_prev_hash, sha256Hex);
      assert.equal(line.toString('utf8'), `${v.hash} ${v.canonical}\n`);
      assert.equal(record.hash, v.hash);
    }
  });

  it('put the top-level keys in RFC 8785 order with the wallet lower-cased', () => {
    for (const v of golden) {
      const parsed = JSON.parse(v.canonical) as Record<string, unknown>;
      assert.deepEqual(Object.keys(parsed), TOP_LEVEL_KEYS);
      assert.equal(parsed.wallet, v.entry.wallet.toLowerCase());
    }
  });

  it('sort nested keys by UTF-16 code units and escape only what JSON requires', () => {
    assert.ok(golden[1].canonical.includes(
      '"request":{"10":"ten","9":"nine","a":{"b":[1,2,{"€":null}]},"z":1,"\u0080":"c1","é":2,"😀":true,"｡":"halfwidth"}',
    ));
    assert.ok(golden[1].canonical.includes('"ADVISORY: line\\nbreak \\"quoted\\" \\\\ tab\\t é €"'));
    assert.ok(golden[3].canonical.includes('"control":"\\u0001\\u001f","empty_array":[],"empty_object":{},"nested":[[[]]],"separators":"\u2028\u2029","slash":"/"'));
  });

  it('print numbers in ECMAScript form', () => {
    assert.ok(golden[2].canonical.includes('"price_usd":1e+21'));
    assert.ok(golden[1].canonical.includes('"price_usd":0.1,'));
    assert.ok(golden[2].canonical.includes(
      '"request":{"big":1e+21,"int":9007199254740991,"just_below":999000000000000000000,"max":1.7976931348623157e+308,"min":5e-324,"neg":-1.5,"small":0.000001,"sum":0.30000000000000004,"tiny":1e-7}',
    ));
    assert.ok(golden[2].canonical.includes('"risk_score":55.5,'));
  });
});

describe('sealRecord and parseLine', () => {
  const entry: AuditEntry = sampleEntry('0xAB00000000000000000000000000000000000001', 3);

  it('writes negative zero as 0, as RFC 8785 requires', () => {
    const text = canonicalJson(recordBody({ ...entry, risk_score: -0 }, 1, 0, ZERO_HASH, ZERO_HASH));
    assert.ok(text.includes('"risk_score":0,'));
  });

  it('refuses values RFC 8785 cannot express and malformed entries', () => {
    const seal = (e: AuditEntry, seq = 1) => () => sealRecord(e, seq, 1, ZERO_HASH, ZERO_HASH, sha256Hex);
    assert.throws(seal({ ...entry, price_usd: Number.POSITIVE_INFINITY }), /Infinity is not allowed/);
    assert.throws(seal({ ...entry, reasons: ['\ud800'] }), /Lone surrogate is not allowed/);
    assert.throws(seal({ ...entry, price_source: undefined as unknown as string }), AuditRecordError);
    assert.throws(seal({ ...entry, request: [] as unknown as Record<string, unknown> }), /request must be an object/);
    assert.throws(seal(entry, 0), /seq must be a positive integer/);
  });

  it('round-trips a line and detects tampering', () => {
    const { record, line } = sealRecord(entry, 7, 1_700_000_000_000, 'a'.repeat(64), 'b'.repeat(64), sha256Hex);
    assert.deepEqual(parseLine(line), record);
    assert.deepEqual(parseLine(line.toString('utf8').trimEnd()), record);
    assert.equal(lineHashMatches(line, sha256Hex), true);
    const tampered = Buffer.from(line.toString('utf8').replace('"seq":7', '"seq":8'));
    assert.equal(lineHashMatches(tampered, sha256Hex), false);
    assert.throws(() => parseLine(`${'g'.repeat(64)} {}`), /does not start with a hash/);
    assert.throws(() => parseLine(`${'a'.repeat(64)} {"seq":1`), /body is not JSON/);
    assert.throws(() => parseLine(`${'a'.repeat(64)} {"seq":1}`), /field channel is not a string/);
  });

  it('returns a record detached from the caller and equal to the stored bytes', () => {
    const reasons = ['A: b'];
    const { record, line } = sealRecord({ ...entry, reasons }, 1, 5, ZERO_HASH, ZERO_HASH, sha256Hex);
    reasons.push('C: d');
    assert.deepEqual(record.reasons, ['A: b']);
    assert.equal(record.hash, nodeSha256(line.subarray(65, line.length - 1)));
  });

  it('writes the line as its hash, a space, the canonical text in UTF-8 and a newline, for text of 1 to 4 bytes a character', () => {
    for (const reason of ['A: plain', 'A: é and €', 'A: 🚀 rocket', 'A: "quoted" \\ and \n']) {
      const { record, line } = sealRecord({ ...entry, reasons: [reason] }, 3, 5, ZERO_HASH, ZERO_HASH, sha256Hex);
      const text = canonicalJson(recordBody({ ...entry, reasons: [reason] }, 3, 5, ZERO_HASH, ZERO_HASH));
      assert.equal(record.hash, nodeSha256(Buffer.from(text, 'utf8')));
      assert.deepEqual(line, Buffer.from(`${record.hash} ${text}\n`, 'utf8'));
    }
  });
});

describe('sha256', () => {
  it('matches node:crypto for bytes and strings, shared and independent hashers', async () => {
    const independent = await createSha256Hex();
    for (const input of ['', 'abc', 'é€😀', 'x'.repeat(100_000)]) {
      const expected = nodeSha256(Buffer.from(input, 'utf8'));
      assert.equal(sha256Hex(input), expected);
      assert.equal(sha256Hex(Buffer.from(input, 'utf8')), expected);
      assert.equal(independent(input), expected);
      assert.equal(Buffer.from(opensslSha256Digest(Buffer.from(input, 'utf8'))).toString('hex'), expected);
    }
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
