// A server process for one bench phase: its own temp directory, seeded with the bench site, and
// gone (with its files) when the phase ends; on PostgreSQL, on the database it is given. The bench never shares the server's event loop.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderSiteJson, type SiteFile } from '@reflow/seed';
import { startServerProcess, type ServerProcess } from '../harness/server-process.ts';
import { ensureDebianPackage } from '../../../scripts/debian-packages.mjs';

export interface BenchServer {
  process: ServerProcess;
  mcpUrl: string;
  baseUrl: string;
  dir: string;
  stop(options?: { keepFiles?: boolean }): Promise<void>;
}

/** 'file' (durable SQLite), ':memory:' (nothing survives the process), or a PostgreSQL database's URL. */
export type BenchDatabase = 'file' | ':memory:' | `postgres://${string}`;

export interface BenchServerOptions {
  database: BenchDatabase;
  env?: Record<string, string>;
  /** Start on the files a previous server left (`stop({ keepFiles: true })`) instead of fresh ones. */
  dir?: string;
  /** Pin the server process (every thread of it) to this core, with taskset: a node with a core of its own. */
  core?: number;
}

export async function startBenchServer(site: SiteFile, options: BenchServerOptions): Promise<BenchServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'reflow-bench-'));
  const seedFile = join(dir, 'site.json');
  if (!options.dir) writeFileSync(seedFile, renderSiteJson(site));
  if (options.core !== undefined) ensureDebianPackage('util-linux', 'the bench pins nodes to cores', 'taskset');
  const postgres = options.database.startsWith('postgres://');
  const databasePath = options.database === 'file' ? join(dir, 'reflow.db') : ':memory:';
  const server = await startServerProcess(
    postgres ? '' : databasePath,
    {
      SEED_FILE: seedFile,
      SHUTDOWN_GRACE_MS: '0',
      // An empty DATABASE_PATH counts as unset; on a shared database the first node seeds it.
      ...(postgres ? { DATABASE_URL: options.database } : {}),
      ...options.env,
    },
    true,
    options.core === undefined ? [] : ['taskset', '--cpu-list', String(options.core)],
  );
  return {
    process: server,
    mcpUrl: server.mcpUrl,
    baseUrl: server.mcpUrl.replace(/\/mcp$/, ''),
    dir,
    async stop(stopOptions) {
      await server.kill();
      if (!stopOptions?.keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}
