// `reflow mcp`: the same tools over stdio, for hosts that launch MCP servers as processes. The same
// database and worker pool as the HTTP server (createServices); stdout carries only MCP messages,
// so every log line goes to stderr.
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { LegacyStatusPushTransport, StdioTaskListenTransport } from '@reflow/mcp-tasks';
import pino, { type Logger } from 'pino';
import { VERSION } from './app.ts';
import type { Config } from './config.ts';
import { callerTasks, mcpServerFactory, SERVER_NAME } from './mcp-server.ts';
import { createServices } from './services.ts';

export interface StdioServer {
  /** Resolves when the host closed the connection (stdin ended) and everything was shut down. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function startStdioServer(
  config: Config,
  logger: Logger = pino({ level: config.LOG_LEVEL }, pino.destination(2)),
): Promise<StdioServer> {
  const services = await createServices(config, logger);
  // subscriptions/listen naming tasks is served in front of the SDK's stdio entry, as over HTTP; a
  // 2025-11-25 connection gets notifications/tasks/status for the tasks it created, unsolicited.
  // The store's watch hears this process's writes and re-reads for those of any other process.
  const { caller, store } = callerTasks(services, undefined);
  const legacyPush = new LegacyStatusPushTransport(new StdioServerTransport(), { store, principal: caller.id });
  const transport = new StdioTaskListenTransport(legacyPush, {
    serverInfo: { name: SERVER_NAME, version: VERSION },
    store,
    principal: caller.id,
  });
  const handle = serveStdio(mcpServerFactory(services, VERSION), {
    transport,
    onerror: (error) => logger.warn({ err: error }, 'stdio connection error'),
  });
  logger.info({ store: services.store.location, workers: config.WORKERS }, 'studio reflow serving MCP over stdio');
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await handle.close().catch(() => {});
      await services.close();
    })());
  // The stdio binding: a server exits promptly once its host closes stdin.
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', () => void close().then(resolve));
    process.stdin.once('close', () => void close().then(resolve));
  });
  return { closed, close };
}
