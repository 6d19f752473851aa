// Reads the audit index's LMDB file header before LMDB maps it: a damaged file is named, never mapped (ARCHITECTURE.md "File audit index").
//
// LMDB keeps no checksums and maps its file: a file cut short ends the reader with SIGBUS at the first page past its
// end, and a file of random bytes can end it with SIGSEGV. The two meta pages at its start say how long it must be
// (the last page in use) and where each tree's root is; these are checked against the file with plain reads, which
// fail with an error and never a signal. Layout: LMDB's mdb.c (MDB_page_header, MDB_meta, MDB_db), data format 2 as
// the lmdb package (3.x) builds it, on a 64-bit host.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const PAGE_HEADER_BYTES = 24;
const FLAGS_AT = 18;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_META = 0x08;
/** Offsets inside a meta page: the header, then MDB_meta. */
const META = { magic: 24, version: 28, pageSize: 48, freeRoot: 88, mainRoot: 136, lastPage: 144, txnid: 152 } as const;
const NO_PAGE = 0xffffffffffffffffn;

interface Meta {
  pageSize: number;
  lastPage: bigint;
  roots: bigint[];
  txnid: bigint;
}

function readBytes(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  return bytes.subarray(0, readSync(fd, bytes, 0, length, position));
}

/** The meta page at `position`, or what is wrong with it. */
function metaAt(fd: number, position: number): Meta | string {
  const page = readBytes(fd, position, META.txnid + 8);
  if (page.length < META.txnid + 8) return `it ends at byte ${position + page.length}, inside its meta pages`;
  if ((page.readUInt16LE(FLAGS_AT) & P_META) === 0 || page.readUInt32LE(META.magic) !== MAGIC) return `no LMDB meta page at byte ${position}`;
  if ((page.readUInt32LE(META.version) & 0xffff) !== DATA_VERSION) return `its format is version ${page.readUInt32LE(META.version) & 0xffff}, not ${DATA_VERSION}`;
  const pageSize = page.readUInt32LE(META.pageSize);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `its meta page names a page size of ${pageSize} bytes`;
  const roots = [page.readBigUInt64LE(META.freeRoot), page.readBigUInt64LE(META.mainRoot)];
  return { pageSize, lastPage: page.readBigUInt64LE(META.lastPage), roots, txnid: page.readBigUInt64LE(META.txnid) };
}

/** What is wrong with the tree root `root` of a meta that uses pages up to `lastPage`, or null. */
function rootProblem(fd: number, meta: Meta, root: bigint): string | null {
  if (root === NO_PAGE) return null;
  if (root > meta.lastPage) return `a tree's root is page ${root}, past its last page ${meta.lastPage}`;
  const header = readBytes(fd, Number(root) * meta.pageSize, PAGE_HEADER_BYTES);
  const flags = header.length === PAGE_HEADER_BYTES ? header.readUInt16LE(FLAGS_AT) : 0;
  if (header.length < PAGE_HEADER_BYTES || header.readBigUInt64LE(0) !== root || (flags & (P_BRANCH | P_LEAF)) === 0) {
    return `page ${root}, a tree's root, does not hold that page`;
  }
  return null;
}

/**
 * What makes the LMDB file at `file` unsafe to map (cut short, emptied, not an LMDB file, a meta page or a root page
 * that does not hold what it should), or null when its header and roots are sound. A changed byte inside a page
 * is not found here.
 */
export function indexFileDamage(file: string): string | null {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 'it is empty';
    const first = metaAt(fd, 0);
    if (typeof first === 'string') return first;
    const second = metaAt(fd, first.pageSize);
    if (typeof second === 'string') return second;
    for (const meta of [first, second]) {
      const needed = (meta.lastPage + 1n) * BigInt(meta.pageSize);
      if (BigInt(size) < needed) return `it is ${size} bytes, but its meta page of transaction ${meta.txnid} uses ${needed}`;
    }
    const newest = first.txnid >= second.txnid ? first : second;
    for (const root of newest.roots) {
      const problem = rootProblem(fd, newest, root);
      if (problem !== null) return problem;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
