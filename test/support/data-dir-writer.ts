// The service that writes a DATA_DIR before the service processes a test starts on it: run in the test's own process.
import { after } from 'node:test';
import { startTestService, type TestService } from './service.js';

const open = new Set<TestService>();
// A test that failed halfway must not leave a service listening: the file's process would never end.
after(async () => {
  for (const writer of open) await writer.service.close();
});

/**
 * Starts the service in this process on `dataDir` with `env` over startTestService's defaults; `stop()` keeps the
 * folder. It runs the same startService, and on stop the same close, that a service process runs on SIGTERM, so it
 * leaves the same files, without another process loading the service's modules (about 2.4 s of CPU each). For the
 * DATA_DIR a test then starts processes on; a test of a crash (SIGKILL) or of the process itself starts a process.
 */
export async function startDataDirWriter(env: Record<string, string | undefined>, dataDir: string): Promise<TestService> {
  const defined = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const writer = await startTestService({ ...defined, PORT: '0' }, dataDir);
  open.add(writer);
  return {
    ...writer,
    stop: async () => {
      open.delete(writer);
      await writer.stop(false);
    },
  };
}
