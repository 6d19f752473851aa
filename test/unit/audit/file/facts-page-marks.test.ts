// The facts pages the audit index marks: a record's facts are found from its page's mark, for page 0 as for any other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FileAuditLog } from '../../../../src/audit/file/file-audit-log.js';
import { LogIndex } from '../../../../src/audit/file/log-index.js';
import { factsEntry } from '../../../support/audit-fixtures.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('facts-page-marks-');

describe('facts page marks', () => {
  it("reads page 0's mark back once the index committed it", async () => {
    const index = LogIndex.open(await tempDir(), false);
    try {
      index.stage([{ offset: 0, length: 10, wallet: '0xa', hash: 'ab'.repeat(32), prev: 0 }], [{ page: 0, offset: 0 }]);
      index.commitStaged();
      assert.deepEqual(index.lastFactsMark(), { page: 0, offset: 0 });
      assert.equal(index.factsStart(0), 0);
    } finally {
      await index.close();
    }
  });

  it('finds the facts of an early record of page 0 after later groups of that page, under every AUDIT_FSYNC', async () => {
    for (const fsync of ['always', 'batch', 'off'] as const) {
      const dir = await tempDir();
      let log = await FileAuditLog.open(dir, { fsync });
      await log.append(factsEntry(1));
      await log.close();
      // A group after the first commit of page 0's mark: it must not mark page 0 again at its own offset.
      log = await FileAuditLog.open(dir, { fsync });
      await log.append(factsEntry(2));
      await log.append(factsEntry(3));
      for (const seq of [1, 2, 3]) {
        // Beside the record's own facts comes its outcome document (format 3).
        const own = (await log.readFacts(seq, 1)).find((line) => line.hash === factsEntry(seq).facts!.hash);
        assert.equal(own?.seq, seq, `${fsync}: the facts of record ${seq}`);
      }
      await log.close();
    }
  });
});
