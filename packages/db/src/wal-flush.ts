// The WAL's fsync, off the event loop. With synchronous=FULL, SQLite fdatasyncs the WAL inside
// COMMIT on the calling thread, so the server's event loop stands still for the disk's flush (about
// a millisecond here, several on a busy disk). A write the store runs this way commits with
// synchronous=NORMAL (its frames written to the WAL, not synced) and is answered only after this
// flush returned from libuv's thread pool: the same file on disk as FULL's commit, while the loop
// keeps serving requests.
import { open, type FileHandle } from 'node:fs/promises';

/** fdatasync of the WAL file: `flush` resolves once everything written to it before the call is on disk. */
export type FlushWal = () => Promise<void>;

/**
 * The real flush, through one handle to `walPath` kept open (a sync of any descriptor of a file
 * flushes the file). SQLite keeps the WAL file while a connection is open, so the handle stays on it.
 */
export function walFlusher(walPath: string): FlushWal & { close(): Promise<void> } {
  let handle: Promise<FileHandle> | undefined;
  const opened = () =>
    (handle ??= open(walPath, 'r').catch((error: unknown) => {
      handle = undefined;
      throw error;
    }));
  return Object.assign(async () => (await opened()).datasync(), {
    async close() {
      const open = handle;
      handle = undefined;
      await (await open?.catch(() => undefined))?.close();
    },
  });
}
