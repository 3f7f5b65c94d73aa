// `npm start`: the process. Reads configuration once, starts, and shuts down cleanly on SIGTERM/SIGINT.
import pino from 'pino';
import { loadConfig } from './config.ts';
import { startServer } from './start-server.ts';

const config = loadConfig();
const logger = pino({ level: config.LOG_LEVEL });
const server = await startServer(config, logger);
logger.info({ url: `${server.url}/mcp`, database: config.DATABASE_PATH, workers: config.WORKERS }, 'studio reflow server listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
