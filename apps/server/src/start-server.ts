import pino, { type Logger } from 'pino';
import { buildApp } from './app.ts';
import { assertSafeBind, isLoopback } from './auth/bind-guard.ts';
import { REDACT_PATHS } from './auth/security.ts';
import { loadTokenTable } from './auth/token-table.ts';
import type { Config } from './config.ts';
import { createServices, type Services, type ServicesOptions } from './services.ts';

export interface RunningServer {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/** Starts services and the HTTP app; used by `npm start`, the demo and the tests alike. */
export async function startServer(
  config: Config,
  logger: Logger = pino({ level: config.LOG_LEVEL, redact: REDACT_PATHS }),
  options: ServicesOptions = {},
): Promise<RunningServer> {
  // Checked before anything opens: no tokens means loopback only.
  const tokens = loadTokenTable(config);
  assertSafeBind(config.HOST, tokens.enabled, config.UNAUTHENTICATED_BIND);
  if (!tokens.enabled && !isLoopback(config.HOST))
    logger.warn(
      { host: config.HOST },
      'no bearer tokens on a non-loopback bind (UNAUTHENTICATED_BIND): only loopback Host names are accepted',
    );
  logger.info({ auth: tokens.enabled ? `${tokens.size} bearer token(s)` : 'none (loopback only)' }, 'authentication');
  const services = await createServices(config, logger, options);
  const app = await buildApp(config, services, logger, tokens);
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
