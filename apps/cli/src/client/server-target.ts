// Where `reflow call`, `resume` and `cancel` find the server: a running one over HTTP (--url), or
// this project's own `reflow mcp` started as a child over stdio (--stdio) on a store. The state file
// records the target with each task, so `reflow resume` reconnects the same way.
import { resolve } from 'node:path';
import type { McpClient, McpClientOptions } from '../mcp-client.ts';
import { McpHttpClient } from '../mcp-http-client.ts';
import { storeEnv, type StoreOptions } from '../store-options.ts';
import type { SavedTask, StdioStore } from './state-file.ts';

export interface ConnectionOptions extends StoreOptions {
  url?: string;
  token?: string;
  /** Start `reflow mcp` on the store and speak to it over stdio. */
  stdio?: boolean;
  stateFile?: string;
  json?: boolean;
  /** Wait by polling only (no subscriptions/listen). */
  poll?: boolean;
  /** Print every MCP message, and the stdio server's log, on stderr. */
  debug?: boolean;
}

export type ServerTarget = { url: string } | { stdio: StdioStore };

export const DEFAULT_URL = 'http://127.0.0.1:3000/mcp';
export const serverUrl = (o: ConnectionOptions) => mcpEndpoint(o.url ?? process.env.REFLOW_URL ?? DEFAULT_URL);
export const tokenOf = (o: ConnectionOptions) => o.token ?? process.env.REFLOW_TOKEN;

/** `reflow tasks` takes the server's base URL and these take its /mcp URL: either works for both. */
export function mcpEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw; // fetch names the bad URL
  }
  if (url.pathname === '/' || /^\/ui\/?$/.test(url.pathname)) url.pathname = '/mcp';
  return url.toString();
}

/**
 * The store a stdio server opens, as `reflow mcp` chooses it: the flags, else $DATABASE_URL, else
 * $DATABASE_PATH or ./data/reflow.db. The server's configuration is loaded here, on use: a command
 * that speaks HTTP starts without the server's code.
 */
async function stdioStore(o: StoreOptions): Promise<StdioStore> {
  const { loadConfig } = await import('@reflow/server-app');
  const { DATABASE_URL, DATABASE_PATH } = loadConfig({
    ...process.env,
    ...(o.databaseUrl !== undefined ? { DATABASE_URL: o.databaseUrl, DATABASE_PATH: '' } : {}),
    ...(o.database !== undefined ? { DATABASE_PATH: o.database, DATABASE_URL: '' } : {}),
  });
  // A path as an absolute one: resume may run from another directory.
  return DATABASE_URL !== undefined ? { databaseUrl: DATABASE_URL } : { database: resolve(DATABASE_PATH!) };
}

/** Where the command line points: --stdio, else --url, $REFLOW_URL or the default. */
export async function targetOf(o: ConnectionOptions): Promise<ServerTarget> {
  return o.stdio ? { stdio: await stdioStore(o) } : { url: serverUrl(o) };
}

/**
 * Where a saved task is followed: where the command line points when it names a target (--url, or
 * --stdio with or without a store), else where the task was created.
 */
export async function targetOfSaved(saved: SavedTask, o: ConnectionOptions): Promise<ServerTarget> {
  if (o.url) return { url: mcpEndpoint(o.url) };
  if (o.stdio && (o.database !== undefined || o.databaseUrl !== undefined || !saved.stdio))
    return { stdio: await stdioStore(o) };
  if (saved.stdio) return { stdio: withKnownPassword(saved.stdio) };
  if (saved.url) return { url: saved.url };
  throw new Error(`The state file names no server for ${saved.taskId}: give --url or --stdio`);
}

/** What the state file keeps of a target: a database URL's password is left out, as tokens are. */
export function savedTarget(target: ServerTarget): Pick<SavedTask, 'url' | 'stdio'> {
  if ('url' in target) return { url: target.url };
  if ('database' in target.stdio) return { stdio: target.stdio };
  return { stdio: { databaseUrl: withoutPassword(target.stdio.databaseUrl) } };
}

const sameTarget = (a: Pick<SavedTask, 'url' | 'stdio'>, b: Pick<SavedTask, 'url' | 'stdio'>) =>
  JSON.stringify([a.url, a.stdio]) === JSON.stringify([b.url, b.stdio]);

/** The saved task as it will be followed: a changed target is remembered. */
export function retarget(saved: SavedTask, target: ServerTarget): SavedTask {
  const where = savedTarget(target);
  return sameTarget(saved, where) ? saved : { ...saved, url: where.url, stdio: where.stdio };
}

export function describeTarget(target: ServerTarget): string {
  if ('url' in target) return target.url;
  return 'database' in target.stdio
    ? `reflow mcp --database ${target.stdio.database} (stdio)`
    : `reflow mcp --database-url ${withoutPassword(target.stdio.databaseUrl)} (stdio)`;
}

/** A client for the target: over HTTP, or a `reflow mcp` child started now on the target's store. */
export async function connect(
  target: ServerTarget,
  o: ConnectionOptions,
  declare: Pick<McpClientOptions, 'elicitation'> = {},
): Promise<McpClient> {
  const options: McpClientOptions = {
    tasks: true,
    listen: !o.poll,
    clientInfo: { name: 'reflow-cli', version: '0.1.0' },
    ...declare,
    ...(o.debug ? { onMessage: (direction, message) => debugLine(direction === 'sent' ? '→' : '←', message) } : {}),
  };
  if ('url' in target) return new McpHttpClient({ ...options, url: target.url, token: tokenOf(o) });
  const { McpStdioClient } = await import('../mcp-stdio-client.ts');
  const client = await McpStdioClient.start(ownServer(target.stdio), {
    ...options,
    ...(o.debug ? { onServerLog: serverLogLines() } : {}),
  });
  if (o.debug) process.stderr.write(`mcp: started ${describeTarget(target)} as pid ${client.serverPid}\n`);
  return client;
}

const debugLine = (arrow: string, message: unknown) =>
  process.stderr.write(`mcp ${arrow} ${JSON.stringify(message)}\n`);

/** The server's log passed on whole lines at a time, so none is cut by a transcript line. */
function serverLogLines() {
  let partial = '';
  return (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) process.stderr.write(`server: ${line}\n`);
  };
}

/**
 * `reflow mcp` on the store, run as this command runs (the same node, loader and entry point: the
 * checkout's bin or the bundled dist/cli.js). Running work is handed back within a second and a half
 * of the CLI letting go, before the SDK's transport, 2 s after closing stdin, would signal it. A
 * database URL goes to it in its environment (DATABASE_URL, as `--database-url` would set it), never
 * on its command line, which every local user can read (`ps`, /proc/<pid>/cmdline) with its password.
 */
function ownServer(store: StdioStore) {
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--inspect'));
  const storeArgs = 'database' in store ? ['--database', store.database] : [];
  return {
    command: process.execPath,
    args: [...execArgv, process.argv[1], 'mcp', ...storeArgs],
    env: {
      ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
      ...('databaseUrl' in store ? storeEnv({ databaseUrl: store.databaseUrl }) : {}),
      SHUTDOWN_GRACE_MS: process.env.SHUTDOWN_GRACE_MS || '1500',
    },
  };
}

function withoutPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (!url.password) return databaseUrl;
    url.password = '';
    return url.toString();
  } catch {
    return databaseUrl;
  }
}

/** A saved database URL, with the password $DATABASE_URL gives when it names the same database (else PGPASSWORD or ~/.pgpass apply). */
function withKnownPassword(store: StdioStore): StdioStore {
  const fromEnv = process.env.DATABASE_URL;
  if ('database' in store || !fromEnv || withoutPassword(fromEnv) !== store.databaseUrl) return store;
  return { databaseUrl: fromEnv };
}
