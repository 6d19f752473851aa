// The published re-hash recipe as runnable plain Node: the methodology and docs/audit-records.md print it, a test runs it.

/**
 * Reads a listing (`GET /api/v1/audit/global`) on stdin and checks every record:
 * SHA-256 of the RFC 8785 form of the record without what the listing gives beside
 * its stored fields (`hash`, `chain`, and a format 3 record's resolved outcome), and
 * the `prev_hash` link. `jcs` is RFC 8785 for JSON values: JSON.stringify writes numbers
 * and strings as section 3.2.2 asks, and the default sort orders keys by UTF-16 code units (3.2.3).
 */
export const REHASH_EXAMPLE = `import { createHash } from 'node:crypto';
const jcs = (v) => v === null || typeof v !== 'object' ? JSON.stringify(v) : Array.isArray(v) ? \`[\${v.map(jcs)}]\`
  : \`{\${Object.keys(v).sort().map((k) => \`\${JSON.stringify(k)}:\${jcs(v[k])}\`)}}\`;
let text = '';
for await (const chunk of process.stdin) text += chunk;
const records = JSON.parse(text).records.reverse(); // listings are newest first
records.forEach(({ hash, chain, ...record }, i) => { // a format 3 record's outcome is listed beside it, not hashed:
  if (record.format === 3) for (const name of ['reasons', 'price_usd', 'price_source']) delete record[name];
  console.log(record.seq, createHash('sha256').update(jcs(record)).digest('hex') === hash ? 'hash ok' : 'HASH MISMATCH',
    i === 0 || record.prev_hash === records[i - 1].hash ? 'link ok' : 'BROKEN LINK'); });
`;
