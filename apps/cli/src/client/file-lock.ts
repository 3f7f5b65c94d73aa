// An exclusive lock beside a file, for read-modify-write from several CLI processes at once (two
// `reflow call`s sharing one state file must not lose each other's task). O_EXCL creation is atomic;
// a lock left by a killed process is taken over once it is older than any real holder could be.
import { closeSync, openSync, rmSync, statSync } from 'node:fs';

const STALE_MS = 10_000;
const GIVE_UP_MS = 15_000;
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function withFileLock<T>(path: string, fn: () => T): T {
  const lock = `${path}.lock`;
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - lockAge(lock) > STALE_MS) rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw new Error(`${path} is locked by another reflow process (${lock}); remove the lock if none is running`, {
          cause: error,
        });
      else pause(5 + Math.random() * 20);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** When the lock was made (its mtime), or now when it vanished meanwhile. */
function lockAge(lock: string): number {
  try {
    return statSync(lock).mtimeMs;
  } catch {
    return Date.now();
  }
}
