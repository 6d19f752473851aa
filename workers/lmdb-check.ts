// Child process (not a thread: a signal would end the service with it) that walks the LMDB store before the service maps it (src/store/lmdb-file-check.ts).
import { walkStore } from '../src/store/lmdb-walk.js';

const dir = process.argv[2];
walkStore(dir).then(
  () => process.exit(0),
  (error: unknown) => {
    // One line the parent quotes: LMDB's own words for what it refused.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`.replace(/\n(?!$)/g, ' '));
    process.exit(2);
  },
);
