// `audit:verify --since` against an in-process service on a loopback socket: the export read pages ahead, and every lie refused.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sealRecord } from '../../../../src/audit/record/record.js';
import { CheckpointSigner, type Checkpoint } from '../../../../src/audit/proof/checkpoint.js';
import { MerkleTree } from '../../../../src/audit/proof/merkle.js';
import { ProofRefused, extendCheckpoint } from '../../../../src/audit/proof/remote-check.js';
import { ExportLines, LARGE_PAGE_RECORDS, PAGE_RECORDS } from '../../../../src/audit/proof/service-reads.js';
import { WALLET_A, sampleEntry } from '../../../support/audit-fixtures.js';
import { buildChain, flipByte, nodeHex } from '../../../support/audit-verify-chains.js';

const TRUSTED = 300;
// Past two pages after the trusted checkpoint, so pages are asked for ahead and read in turn.
const TOTAL = TRUSTED + 2 * PAGE_RECORDS + 300;
const { lines } = buildChain(TOTAL);
const signer = new CheckpointSigner(Buffer.alloc(32, 9));
const tree = new MerkleTree();
for (const line of lines) tree.appendRecordHash(line.toString('latin1', 0, 64));

const checkpointAt = (size: number, root = tree.root(size).toString('hex')): Checkpoint => signer.sign({
  tree_size: size, root_hash: root, timestamp: 1_767_225_600_000 + size, last_seq: size, last_hash: lines[size - 1].toString('latin1', 0, 64),
});
const trusted = checkpointAt(TRUSTED);
const hex = (path: Buffer[]) => path.map((hash) => hash.toString('hex'));

/** Records after TRUSTED sealed from other entries but linked to it: a valid chain that is not the signed one. */
function forkedAfterTrusted(): Buffer[] {
  const forked = lines.slice(0, TRUSTED);
  let prev = lines[TRUSTED - 1].toString('latin1', 0, 64);
  let walletPrev = '0'.repeat(64);
  for (let seq = TRUSTED + 1; seq <= TOTAL; seq++) {
    const { record, line } = sealRecord(sampleEntry(WALLET_A, seq + 1), seq, 1_767_225_700_000 + seq, prev, walletPrev, nodeHex);
    forked.push(line.subarray(0, line.length - 1));
    prev = walletPrev = record.hash;
  }
  return forked;
}

/** How the service answers this test: the lines it exports, how it pages them, and what it bends. */
interface Behaviour {
  lines: Buffer[];
  /** At most this many lines a page, whatever the limit asked; Infinity to ignore the limit. */
  pageCap?: number;
  /** Export requests answered 429 (Retry-After: 0) before any is served. */
  rateLimited?: number;
  lastLeafPath?: (path: string[]) => string[];
}

let behaviour: Behaviour = { lines };
const asked: string[] = [];

function answer(url: URL): { status: number; body: string; headers?: Record<string, string> } {
  const query = (name: string) => Number(url.searchParams.get(name));
  if (url.pathname === '/.well-known/audit-key.json') return { status: 200, body: JSON.stringify(signer.published) };
  if (url.pathname === '/api/v1/audit/checkpoint') return { status: 200, body: JSON.stringify(checkpointAt(TOTAL)) };
  if (url.pathname === '/api/v1/audit/consistency') {
    const [first, second] = [query('first'), query('second')];
    return { status: 200, body: JSON.stringify({ first, second, proof: hex(tree.consistencyProof(first, second)) }) };
  }
  if (url.pathname.startsWith('/api/v1/audit/proof/')) {
    const [seq, size] = [Number(url.pathname.split('/').pop()), query('tree_size')];
    const path = hex(tree.inclusionProof(seq - 1, size));
    return { status: 200, body: JSON.stringify({ seq, leaf_index: seq - 1, tree_size: size, audit_path: behaviour.lastLeafPath?.(path) ?? path }) };
  }
  if (url.pathname === '/api/v1/audit/export') {
    if ((behaviour.rateLimited ?? 0) > 0) {
      behaviour.rateLimited!--;
      return { status: 429, body: '{"detail":"Rate limit exceeded","code":"rate_limited"}', headers: { 'retry-after': '0' } };
    }
    const from = query('from_seq');
    const count = behaviour.pageCap === Infinity ? behaviour.lines.length : Math.min(query('limit'), behaviour.pageCap ?? Infinity);
    const page = behaviour.lines.slice(from - 1, from - 1 + count);
    return { status: 200, body: page.map((line) => `${line.toString('latin1')}\n`).join('') };
  }
  return { status: 404, body: '{}' };
}

let server: Server;
let base = '';
before(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    asked.push(`${url.pathname}${url.search}`);
    const { status, body, headers } = answer(url);
    response.writeHead(status, { 'content-type': url.pathname === '/api/v1/audit/export' ? 'text/plain' : 'application/json', ...headers });
    response.end(body, 'latin1');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  behaviour = { lines };
  asked.length = 0;
});

const exports = () => asked.filter((path) => path.startsWith('/api/v1/audit/export'));

describe('audit:verify --since against a service on a socket', () => {
  it('reads only the records after the trusted checkpoint, a page at a time, and builds the signed root', async () => {
    const extended = await extendCheckpoint(base, trusted);
    assert.deepEqual([extended.from.tree_size, extended.to.tree_size, extended.records], [TRUSTED, TOTAL, TOTAL - TRUSTED]);
    assert.deepEqual(exports(), [
      `/api/v1/audit/export?from_seq=${TRUSTED + 1}&limit=${PAGE_RECORDS}`,
      `/api/v1/audit/export?from_seq=${TRUSTED + PAGE_RECORDS + 1}&limit=${PAGE_RECORDS}`,
      `/api/v1/audit/export?from_seq=${TRUSTED + 2 * PAGE_RECORDS + 1}&limit=300`,
    ]);
  });

  it('starts from the first record with genesis', async () => {
    assert.equal((await extendCheckpoint(base, null)).records, TOTAL);
  });

  it('follows a service whose pages are shorter than asked from where each stopped', async () => {
    behaviour = { lines, pageCap: 700 };
    assert.equal((await extendCheckpoint(base, trusted)).records, TOTAL - TRUSTED);
    assert.ok(exports().includes(`/api/v1/audit/export?from_seq=${TRUSTED + 701}&limit=${PAGE_RECORDS}`), exports().join('\n'));
  });

  it('waits out 429s as their Retry-After asks and asks for the same page again', async () => {
    behaviour = { lines, rateLimited: 2 };
    assert.equal((await extendCheckpoint(base, trusted)).records, TOTAL - TRUSTED);
    const first = `/api/v1/audit/export?from_seq=${TRUSTED + 1}&limit=${PAGE_RECORDS}`;
    // The first two pages, asked at once, were refused; the first is asked again, with the pages after it.
    assert.equal(exports().filter((path) => path === first).length, 2, exports().join('\n'));
  });

  it('gives up after 20 429s in a row, saying so', async () => {
    behaviour = { lines, rateLimited: Infinity };
    await assert.rejects(extendCheckpoint(base, trusted), /GET \/api\/v1\/audit\/export answered 429/);
  });

  it('asks for the export\'s largest pages after the first ten, so a long run makes few requests', async () => {
    const long = buildChain(21_000).lines;
    behaviour = { lines: long };
    let count = 0;
    for await (const run of new ExportLines(base, 1, long.length)) count += run.toString('latin1').split('\n').length - 1;
    assert.equal(count, long.length);
    // Pages a test before this one gave up on may still reach the server; they start at TRUSTED + 1 + k * 1000.
    const ours = exports().map((path) => new URL(path, base).searchParams).filter((query) => Number(query.get('from_seq')) % PAGE_RECORDS === 1);
    assert.deepEqual(ours.map((query) => query.get('limit')), [
      ...Array(10).fill(String(PAGE_RECORDS)), String(LARGE_PAGE_RECORDS), String(21_000 - 10 * PAGE_RECORDS - LARGE_PAGE_RECORDS),
    ]);
  });

  it('reads no more lines than it asked for from a service that ignores the limit', async () => {
    behaviour = { lines, pageCap: Infinity };
    assert.equal((await extendCheckpoint(base, trusted)).records, TOTAL - TRUSTED);
  });

  const refusals: Array<[string, () => Behaviour, RegExp]> = [
    ['a record whose bytes were changed', () => ({ lines: flipByte(lines, TRUSTED + PAGE_RECORDS + 5) }),
      new RegExp(`^record ${TRUSTED + PAGE_RECORDS + 5}: its bytes do not hash to its stored hash$`)],
    ['a record left out', () => ({ lines: lines.filter((_, i) => i !== TRUSTED + 10) }),
      new RegExp(`^record ${TRUSTED + 11}: the export gave a line that is not record ${TRUSTED + 11}$`)],
    ['records cut from the end', () => ({ lines: lines.slice(0, TOTAL - 3) }), new RegExp(`^record ${TOTAL - 2} is missing from the export$`)],
    ['a valid chain after the trusted record that the signed root does not cover', () => ({ lines: forkedAfterTrusted() }),
      /^the records after the trusted checkpoint do not build the signed root$/],
    ['a wrong sibling on the trusted tree\'s edge', () => ({ lines, lastLeafPath: (path) => [path[0].replace(/^./, (c) => (c === '0' ? '1' : '0')), ...path.slice(1)] }),
      /^the trusted checkpoint's last record: the audit path does not lead to the checkpoint root$/],
    ['an edge of another tree size', () => ({ lines, lastLeafPath: (path) => path.slice(1) }),
      /^the trusted checkpoint's last record: the audit path is shorter than the tree is deep$/],
  ];
  for (const [name, bent, reason] of refusals) {
    it(`refuses ${name}`, async () => {
      behaviour = bent();
      await assert.rejects(extendCheckpoint(base, trusted), (error: Error) => {
        assert.ok(error instanceof ProofRefused, String(error));
        assert.match(error.message, reason);
        return true;
      });
    });
  }

  it('refuses the first record of a page when it does not link to the page before', async () => {
    // The first line of the second page, sealed onto another predecessor: its bytes hash right, its link does not.
    const seq = TRUSTED + PAGE_RECORDS + 1;
    const relinked = [...lines];
    const { line } = sealRecord(sampleEntry(WALLET_A, 1), seq, 1, 'e'.repeat(64), '0'.repeat(64), nodeHex);
    relinked[seq - 1] = line.subarray(0, line.length - 1);
    behaviour = { lines: relinked };
    await assert.rejects(extendCheckpoint(base, trusted), new ProofRefused(`record ${seq}: prev_hash does not name the record before it`));
  });
});
