// The crash test's tools: the real server as a child process (its own process group, so SIGKILL
// takes everything it started), a seeded random stream, and read-only looks into its SQLite file.
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { createRng } from '@reflow/seed';

export { ServerExitedEarly, startServerProcess, type ServerProcess } from '../harness/server-process.ts';

/** mulberry32 (the seed generator's own), so a failing run can be repeated with CRASH_SEED. */
export const seededRandom = createRng;

/** Runs `fn` on a fresh read-only connection to the file (the server may be writing meanwhile). */
export function peek<T>(databasePath: string, fn: (db: Database.Database) => T): T {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

/** Polls `probe` until it returns a value, or gives up at the deadline with undefined. */
export async function pollFor<T>(probe: () => T | undefined, timeoutMs: number, everyMs = 10): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}
