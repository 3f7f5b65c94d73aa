// The WAL's checkpoints, off the event loop (SQLite). By default SQLite checkpoints inside the
// COMMIT that takes the WAL past 1,000 pages: on the calling thread it copies the WAL's pages into
// the database and syncs both files, and the server's event loop stands still meanwhile. Measured
// with the create path's statements, that inline work was over half of what a create cost the
// store (docs/performance.md). Here a worker thread with its own connection checkpoints PASSIVE
// every `everyMs`, and the server's connection checkpoints only as a backstop, past
// BACKSTOP_PAGES: under writes that never pause, a passive checkpoint always trails the newest
// frames, and only a writer can start the WAL over. That inline checkpoint finds almost everything
// already copied. What is on disk is SQLite's own checkpoint either way.
import { Worker } from 'node:worker_threads';
import type { Connection } from './connection.ts';

/** SQLite's own threshold, restored when the checkpointer stops or its thread dies. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** The server's connection checkpoints itself only when the WAL has grown past this (about 25 MB). */
export const BACKSTOP_PAGES = 6_000;

export interface WalCheckpointer {
  /** PASSIVE checkpoints the thread has run so far (tests wait for one). */
  readonly checkpoints: number;
  /** Stops the thread; the connection checkpoints inline again, at SQLite's default threshold. */
  stop(): Promise<void>;
}

export function startWalCheckpointer(
  connection: Connection,
  options: { everyMs?: number; onError?: (error: Error) => void } = {},
): WalCheckpointer {
  const { sqlite, path } = connection;
  const worker = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), {
    workerData: { path, everyMs: options.everyMs ?? 250 },
    // Plain JavaScript: none of the process's loaders (tsx under `npm run dev` and the tests).
    execArgv: [],
  });
  worker.unref();
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let checkpoints = 0;
  let stopping = false;
  const inlineAgain = () => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (message: { checkpoint?: unknown }) => {
    if (message.checkpoint) checkpoints++;
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', (error) => {
    // The thread is gone: the connection checkpoints inline again, as SQLite does by default.
    inlineAgain();
    if (!stopping) options.onError?.(error);
  });
  return {
    get checkpoints() {
      return checkpoints;
    },
    async stop() {
      stopping = true;
      inlineAgain();
      // Held by its thread until it has closed its connection (unref'd, the wait alone would not be).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
