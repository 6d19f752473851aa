// The audit record's layout (src/audit/record/layout.ts) against golden lines: the serialiser, the parser, the
// verifier's byte scan, the file index's quick parse and factsHashOf all read these lines as the layout says.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { quickParse } from '../../../../src/audit/file/file-scan.js';
import { RECORD_FIELDS, type RecordField } from '../../../../src/audit/record/layout.js';
import { canonicalJson, factsHashOf, fastCanonicalJson, parseLine, sealRecord, type AuditRecordBody } from '../../../../src/audit/record/record.js';
import { outcomeHashOf } from '../../../../src/audit/record/outcome.js';
import { opensslSha256Digest, sha256Hex } from '../../../../src/audit/record/sha256.js';
import { HASH_OK, LINK_OK, SHAPE_OK, scanChunk } from '../../../../src/audit/verify/chunk-scan.js';

/**
 * Format 1 (no facts; test/golden/audit-records.json's first record), format 2, and a paid format 2 record followed by
 * one it links to, as logs written before format 3 hold them; then format 3 (facts and outcome by hash, the request
 * without the record's wallet), unpaid and paid, linked.
 */
const FORMAT_1 = '61ce48e7fc98316c181735c35051ea68edee6916c956b7f93e94838be52f333a {"channel":"rest","decision":"allow","prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","price_source":"chainlink","price_usd":251.37,"reasons":[],"request":{"amount_usd":250,"side":"buy","symbol":"TSLA","wallet":"0xAbCdEf0000000000000000000000000000000001"},"risk_score":12,"seq":1,"tier":1,"ts":1767623400000,"wallet":"0xabcdef0000000000000000000000000000000001","wallet_prev_hash":"0000000000000000000000000000000000000000000000000000000000000000"}';
const PAID = 'a62ac1e3db2959a2ad2faca91fa25d4036fb71d7ce1be617de3d286bfc5125a6 {"channel":"x402","decision":"warn","facts_hash":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","format":2,"payment":{"amount":"10000","asset":"0xefefefefefefefefefefefefefefefefefefefef","network":"eip155:4663","nonce":"0xabababababababababababababababababababababababababababababababab","pay_to":"0x1212121212121212121212121212121212121212","payer":"0xabcdef0000000000000000000000000000000002","transaction":"0xcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"},"prev_hash":"1111111111111111111111111111111111111111111111111111111111111111","price_source":"oracle","price_usd":251.37,"reasons":["SLIPPAGE_HIGH: max_slippage_bps of 1,000 exceeds 500 bps"],"request":{"amount":2,"asset":"TSLA","side":"buy","wallet":"0xAbCdEf0000000000000000000000000000000002"},"risk_score":41,"seq":7,"tier":2,"ts":1767623400000,"wallet":"0xabcdef0000000000000000000000000000000002","wallet_prev_hash":"0000000000000000000000000000000000000000000000000000000000000000"}';
const FORMAT_2 = '11f33e7ecc844458214f2459b6d754664d6083199d66bf8b1bb2ae8da68293ce {"channel":"free","decision":"warn","facts_hash":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","format":2,"prev_hash":"a62ac1e3db2959a2ad2faca91fa25d4036fb71d7ce1be617de3d286bfc5125a6","price_source":"oracle","price_usd":251.37,"reasons":["SLIPPAGE_HIGH: max_slippage_bps of 1,000 exceeds 500 bps"],"request":{"amount":2,"asset":"TSLA","side":"buy","wallet":"0xAbCdEf0000000000000000000000000000000002"},"risk_score":41,"seq":8,"tier":1,"ts":1767623400001,"wallet":"0xabcdef0000000000000000000000000000000002","wallet_prev_hash":"0000000000000000000000000000000000000000000000000000000000000000"}';
const FORMAT_3 = '58b8673098596cb92f5d0d28ce768d5242f337468816e41beee643d180976907 {"channel":"free","decision":"warn","facts_hash":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","format":3,"outcome_hash":"1d051a730cc623b91e21a8d124522d3609bc52db216019947ffc2bbc2868fa17","prev_hash":"11f33e7ecc844458214f2459b6d754664d6083199d66bf8b1bb2ae8da68293ce","request":{"amount":2,"asset":"TSLA","side":"buy"},"risk_score":41,"seq":9,"tier":1,"ts":1767623400002,"wallet":"0xabcdef0000000000000000000000000000000002","wallet_prev_hash":"0000000000000000000000000000000000000000000000000000000000000000"}';
const PAID_3 = '2c66f06f29529508801ce2c6569f1ecc9d172c2c6de4ea5bf4c06ef6a5a15055 {"channel":"x402","decision":"warn","facts_hash":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","format":3,"outcome_hash":"1d051a730cc623b91e21a8d124522d3609bc52db216019947ffc2bbc2868fa17","payment":{"amount":"10000","asset":"0xefefefefefefefefefefefefefefefefefefefef","network":"eip155:4663","nonce":"0xabababababababababababababababababababababababababababababababab","pay_to":"0x1212121212121212121212121212121212121212","payer":"0xabcdef0000000000000000000000000000000002","transaction":"0xcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"},"prev_hash":"58b8673098596cb92f5d0d28ce768d5242f337468816e41beee643d180976907","request":{"amount":2,"asset":"TSLA","side":"buy"},"risk_score":41,"seq":10,"tier":1,"ts":1767623400003,"wallet":"0xabcdef0000000000000000000000000000000002","wallet_prev_hash":"58b8673098596cb92f5d0d28ce768d5242f337468816e41beee643d180976907"}';
/** The outcome document FORMAT_3 and PAID_3 name by `outcome_hash`. */
const OUTCOME = '{"kind":"outcome","price_source":"oracle","price_usd":251.37,"reasons":["SLIPPAGE_HIGH: max_slippage_bps of 1,000 exceeds 500 bps"]}';
const GOLDEN = [FORMAT_1, PAID, FORMAT_2, FORMAT_3, PAID_3];

const bodyOf = (line: string) => line.slice(65);
const present = (record: Record<string, unknown>) => RECORD_FIELDS.filter((f: RecordField) => record[f.name] !== undefined).map((f) => f.name);

describe('the record layout', () => {
  it('lists its fields in RFC 8785 key order, so the canonical bytes follow it', () => {
    const names = RECORD_FIELDS.map((f) => f.name);
    assert.deepEqual(names, [...names].sort());
    for (const line of GOLDEN) assert.deepEqual(Object.keys(JSON.parse(bodyOf(line))), present(JSON.parse(bodyOf(line))));
  });

  it('the parser reads each golden line, and the serialiser writes its bytes back exactly', () => {
    for (const line of GOLDEN) {
      assert.equal(createHash('sha256').update(bodyOf(line)).digest('hex'), line.slice(0, 64));
      const { hash, ...body } = parseLine(line);
      assert.equal(hash, line.slice(0, 64));
      assert.equal(canonicalJson(body as AuditRecordBody), bodyOf(line));
    }
    // The fast path writes every record but a paid one, which it leaves to the library.
    assert.equal(fastCanonicalJson(parseLine(FORMAT_1) as AuditRecordBody), bodyOf(FORMAT_1));
    assert.equal(fastCanonicalJson(parseLine(FORMAT_2) as AuditRecordBody), bodyOf(FORMAT_2));
    assert.equal(fastCanonicalJson(parseLine(FORMAT_3) as AuditRecordBody), bodyOf(FORMAT_3));
    assert.equal(fastCanonicalJson(parseLine(PAID) as AuditRecordBody), null);
    assert.equal(fastCanonicalJson(parseLine(PAID_3) as AuditRecordBody), null);
  });

  it('seals a verdict with facts as format 3: its outcome a document named by hash, its request without the record\'s wallet', () => {
    const { hash: _hash, seq, ts, prev_hash, wallet_prev_hash, facts_hash, format: _format, ...entry } = parseLine(FORMAT_2);
    const verdict = { ...entry, reasons: entry.reasons!, price_usd: entry.price_usd!, price_source: entry.price_source!, facts: { text: '{}', hash: facts_hash! } };
    const link = '11f33e7ecc844458214f2459b6d754664d6083199d66bf8b1bb2ae8da68293ce';
    const sealed = sealRecord({ ...verdict, request: { ...entry.request, wallet: entry.wallet } }, 9, ts + 1, link, wallet_prev_hash, sha256Hex);
    assert.equal(sealed.line.toString(), `${FORMAT_3}\n`);
    assert.deepEqual(sealed.outcome, { text: OUTCOME, hash: createHash('sha256').update(OUTCOME).digest('hex') });
    assert.equal(sealed.outcome!.hash, JSON.parse(bodyOf(FORMAT_3)).outcome_hash);
    // The record handed back is the listed one: the stored fields and the outcome resolved beside them.
    const stored = present(sealed.record as unknown as Record<string, unknown>).filter((name) => !['reasons', 'price_usd', 'price_source'].includes(name));
    assert.deepEqual(stored, Object.keys(JSON.parse(bodyOf(FORMAT_3))));
    assert.deepEqual([sealed.record.reasons, sealed.record.price_usd, sealed.record.price_source], [entry.reasons, entry.price_usd, entry.price_source]);
    void prev_hash;
    // A request wallet in another case than the record's (a checksum address) is what the caller sent: it stays.
    const checksum = sealRecord(verdict, 9, ts + 1, link, wallet_prev_hash, sha256Hex);
    assert.equal(JSON.parse(canonicalJson(parseLine(checksum.line) as AuditRecordBody)).request.wallet, entry.request.wallet);
  });

  it('a record without facts is still sealed as format 1, its outcome in its own bytes', () => {
    const { hash: _hash, seq, ts, prev_hash, wallet_prev_hash, ...entry } = parseLine(FORMAT_1);
    const sealed = sealRecord({ ...entry, reasons: entry.reasons!, price_usd: entry.price_usd!, price_source: entry.price_source! }, seq, ts, prev_hash, wallet_prev_hash, sha256Hex);
    assert.equal(sealed.line.toString(), `${FORMAT_1}\n`);
    assert.equal(sealed.outcome, undefined);
  });

  it('the verifier\'s byte scan finds each golden line\'s seq and link, and follows the link from one to the next', () => {
    for (const line of GOLDEN) {
      const scan = scanChunk(Buffer.from(`${line}\n`), 'prev_hash', opensslSha256Digest);
      assert.deepEqual([...scan.seqs], [JSON.parse(bodyOf(line)).seq]);
      assert.equal(scan.flags[0] & (SHAPE_OK | HASH_OK), SHAPE_OK | HASH_OK);
      assert.equal(scan.firstLink, JSON.parse(bodyOf(line)).prev_hash);
      const wallet = scanChunk(Buffer.from(`${line}\n`), 'wallet_prev_hash', opensslSha256Digest);
      assert.equal(wallet.firstLink, JSON.parse(bodyOf(line)).wallet_prev_hash);
    }
    const linked = scanChunk(Buffer.from(`${PAID}\n${FORMAT_2}\n`), 'prev_hash', opensslSha256Digest);
    assert.equal(linked.flags[1], SHAPE_OK | HASH_OK | LINK_OK);
    const linked3 = scanChunk(Buffer.from(`${FORMAT_2}\n${FORMAT_3}\n${PAID_3}\n`), 'prev_hash', opensslSha256Digest);
    assert.deepEqual([...linked3.flags].slice(1), [SHAPE_OK | HASH_OK | LINK_OK, SHAPE_OK | HASH_OK | LINK_OK]);
  });

  it('the file index\'s quick parse, factsHashOf and outcomeHashOf read the seq, the wallet and the documents\' hashes', () => {
    for (const line of GOLDEN) {
      const body = JSON.parse(bodyOf(line));
      const bytes = Buffer.from(line);
      assert.deepEqual(quickParse(bytes, 0, bytes.length), { seq: body.seq, wallet: body.wallet });
      assert.equal(factsHashOf(bytes), body.facts_hash ?? null);
      assert.equal(outcomeHashOf(bytes), body.outcome_hash ?? null);
    }
  });
});
