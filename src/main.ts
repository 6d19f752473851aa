// Entry point of `npm start`: check the environment, start the service, stop cleanly on signals.
import { startService } from './assembly/app.js';
import { chainNotes } from './assembly/chain-notes.js';
import { ConfigError, loadConfig } from './config.js';
import { serviceLog } from './observability/service-log.js';

/** Before the service runs (a bad environment, a failed start) a person reads plain text. */
const plain = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      plain(error.message);
      process.exit(2);
    }
    throw error;
  }
  // Running, every line is pino JSON: events as `msg`, one line per answered request.
  const logs = serviceLog();
  const log = logs.line;
  const service = await startService(config, log, { logDrops: logs.dropped, ...(config.requestLog ? { requestLog: logs.request } : {}) });
  const registry = service.registry.assets.map((asset) => asset.symbol).join(', ');
  log(`trade guardrail listening on http://${config.host}:${service.port}`);
  log(`  registry (${service.registry.assets.length} assets, chain ${service.registry.chainId}): ${registry}`);
  // AUDIT_FSYNC governs the file log only; on Redis the chain is as durable as Redis's own persistence.
  const audit = config.auditStore === 'redis' ? 'redis' : `file (fsync ${config.auditFsync}) in ${config.dataDir}`;
  log(`  store: ${config.store}; audit: ${audit}`);
  for (const line of chainNotes(service.chain, Date.now())) log(line);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: closing`);
    service.close().then(
      () => {
        logs.flush();
        process.exit(0);
      },
      (error: unknown) => {
        log(`error while closing: ${(error as Error).message}`, 'error');
        logs.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  plain(`failed to start: ${(error as Error).message}`);
  process.exit(1);
});
