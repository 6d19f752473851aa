// Which failures a start waits out (a disk without room) and which still refuse it (anything else).
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { DataDirMismatch } from '../../../src/assembly/data-dir-epoch.js';
import { noRoom, OpenWhenRoom } from '../../../src/assembly/open-when-room.js';
import { StoreUnavailableError } from '../../../src/store/store-unavailable.js';
import { pollUntil } from '../../support/wait-until.js';

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('noRoom', () => {
  it('names ENOSPC and EDQUOT by code, by the words a worker thread passes on, and through the causes an error wraps', () => {
    assert.equal(noRoom(errno('ENOSPC', 'ENOSPC: no space left on device, write'), tmpdir()), true);
    assert.equal(noRoom(errno('EDQUOT', 'EDQUOT: disk quota exceeded, write'), tmpdir()), true);
    assert.equal(noRoom(new Error('audit index failed: ENOSPC'), tmpdir()), true);
    assert.equal(noRoom(new StoreUnavailableError('set', new Error('No space left on device: Attempting to write page at position 40960')), tmpdir()), true);
  });

  it('leaves every other failure to refuse the start: a mismatch, a damaged file, an I/O error on a disk with room', () => {
    assert.equal(noRoom(new DataDirMismatch('the store in DATA_DIR/store is empty'), tmpdir()), false);
    assert.equal(noRoom(new Error('the store file /data/store/data.mdb is damaged: reading it ended the check with SIGBUS'), tmpdir()), false);
    assert.equal(noRoom(errno('EIO', 'EIO: i/o error, read'), tmpdir()), false);
  });
});

describe('OpenWhenRoom.start', () => {
  it('throws a failure that is not a full disk, as a start did', async () => {
    const mismatch = new DataDirMismatch('written with AUDIT_STORE=file');
    await assert.rejects(OpenWhenRoom.start('the data', () => Promise.reject(mismatch), tmpdir(), () => undefined), mismatch);
  });

  it('waits on a full disk, whatever the backend: nothing is open, the problem names the disk, and the step opens by itself once it succeeds', async () => {
    const full = errno('ENOSPC', 'ENOSPC: no space left on device, write');
    let room = false;
    const opened = { close: async () => undefined };
    const opening = await OpenWhenRoom.start('the data', async () => {
      if (!room) throw full;
      return opened;
    }, tmpdir(), () => undefined);
    try {
      assert.equal(opening.current(), null);
      assert.match(opening.problem()!, /^the data could not open: the disk is full at /);
      room = true;
      await pollUntil('the step opened', async () => opening.current(), (value) => value === opened, 30_000, 50);
      assert.equal(opening.problem(), null);
    } finally {
      await opening.close();
    }
  });
});
