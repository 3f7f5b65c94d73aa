import { loadConfig, startStdioServer } from '@reflow/server-app';
import { storeEnv, type StoreOptions } from '../store-options.ts';

export interface McpOptions extends StoreOptions {
  workers?: number;
}

/** `reflow mcp`: serves the tools over stdio until the host closes stdin. Configuration as for `npm start`. */
export async function runMcp(options: McpOptions): Promise<number> {
  const config = loadConfig({
    ...process.env,
    ...storeEnv(options),
    ...(options.workers !== undefined ? { WORKERS: String(options.workers) } : {}),
  });
  const server = await startStdioServer(config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => void server.close().then(() => process.exit(0)));
  await server.closed;
  return 0;
}
