import pino, { type Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createServices, type Services } from './services.ts';

export interface RunningServer {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/** Starts services and the HTTP app; used by `npm start`, the demo and the tests alike. */
export async function startServer(config: Config, logger: Logger = pino({ level: config.LOG_LEVEL })): Promise<RunningServer> {
  const services = createServices(config, logger);
  const app = await buildApp(config, services, logger);
  let address: string;
  try {
    address = await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await services.close(0);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: address,
    services,
    close: () =>
      (closing ??= (async () => {
        // Stop accepting first; running solves get the grace period (their synchronous callers are
        // answered when they finish or are released), then the pool and the database close.
        const appClosed = app.close();
        await services.engine.stop(config.SHUTDOWN_GRACE_MS);
        await appClosed;
        await services.close();
      })()),
  };
}
