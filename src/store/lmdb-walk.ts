// Reads every entry of an LMDB store once and tries a write it throws away: what a damaged file would crash on (ARCHITECTURE.md "Embedded store").
import { ABORT, open } from 'lmdb';

/** A key no caller can name (keys.ts names every key with a prefix), written only in a transaction that is aborted. */
const PROBE_KEY = '\u0000check';
const PROBE_VALUE = Buffer.alloc(1_000);

/**
 * Walks every named database of the store in `dir`, copying out each key's and value's bytes
 * (not decoding them: a value that does not decode fails its read with an error, no signal,
 * and decoding would double the walk's time), then writes a
 * few entries into each in one transaction and aborts it: a write reads the free-page list and
 * copies the pages on its path, which a read does not. Nothing reaches the file. LMDB keeps no
 * checksums, so damage can end the process with SIGBUS or SIGSEGV: run this in a process of its
 * own (workers/lmdb-check.ts). Returns the number of entries read; throws what LMDB refused.
 */
export async function walkStore(dir: string): Promise<number> {
  const root = open({ path: dir });
  try {
    const names = [...root.getKeys()].map(String);
    const databases = names.map((name) => root.openDB({ name, encoding: 'binary', keyEncoding: 'binary' }));
    let entries = 0;
    for (const database of databases) {
      for (const entry of database.getRange()) entries += entry.value === undefined ? 0 : 1;
    }
    root.transactionSync(() => {
      for (const database of databases) for (let i = 0; i < 4; i++) database.putSync(Buffer.from(`${PROBE_KEY}${i}`), PROBE_VALUE);
      return ABORT;
    });
    return entries;
  } finally {
    await root.close();
  }
}
