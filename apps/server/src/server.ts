// `npm start`: the process. Reads configuration once, starts, and shuts down cleanly on SIGTERM/SIGINT.
import pino from 'pino';
import { REDACT_PATHS } from './auth/security.ts';
import { loadConfig, type Config } from './config.ts';
import { bufferedStdout } from './logging/log-destination.ts';
import { startServer, type RunningServer } from './start-server.ts';

let server: RunningServer;
let logger: pino.Logger;
let config: Config;
try {
  config = loadConfig();
  logger = pino({ level: config.LOG_LEVEL, redact: REDACT_PATHS }, bufferedStdout());
  server = await startServer(config, logger);
} catch (error) {
  // A refused start (bad configuration, an unsafe bind, a port in use) says why and exits non-zero.
  console.error(`studio reflow server did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// The signal handlers are in place before the server says it is listening: a SIGTERM sent the
// moment the line appears must shut it down cleanly, not kill it.
let shuttingDown = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    // A second signal means "now": the database is still consistent (every write is a transaction).
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info(
      { signal, graceMs: config.SHUTDOWN_GRACE_MS },
      'shutting down: no new requests; running tasks finish or are released',
    );
    server.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

logger.info(
  { url: `${server.url}/mcp`, store: server.services.store.location, workers: config.WORKERS },
  'studio reflow server listening',
);
// Out at once: whoever started the server waits for this line.
logger.flush();
