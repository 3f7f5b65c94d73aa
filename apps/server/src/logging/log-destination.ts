// Where the server process's log lines go: stdout, written a chunk at a time. A write per line
// (pino's default) is a system call per request on the threadpool; under ten clients creating at
// once that cost the create rate 10–12 % (bench of 2 Dec, docs/performance.md). Lines wait for at
// most FLUSH_EVERY_MS, so a person tailing a quiet server still sees each line at once; a clean
// exit, an uncaught error's exit and a signal's shutdown write out what is buffered (pino flushes
// its destination synchronously on `exit`). A SIGKILL can lose the last FLUSH_EVERY_MS of lines,
// never a task: the database holds every task and its history (task_events).
import pino from 'pino';

/** How long a line may wait in the buffer. */
const FLUSH_EVERY_MS = 100;
/** Bytes buffered before a write goes out without waiting for the timer. */
const CHUNK_BYTES = 8 * 1024;
/** Timer flushes in a row that may write nothing before the timer waits for the next line (1 s). */
const FUTILE_FLUSHES = 10;

export interface BufferedDestination extends pino.DestinationStream {
  /** Writes what is buffered now (a callback once it is written). */
  flush(done?: (error?: Error) => void): void;
}

export function bufferedStdout(fd = 1): BufferedDestination {
  const out = pino.destination({ dest: fd, minLength: CHUNK_BYTES, sync: false });
  // Bytes handed to sonic-boom and not yet written. Its flush does nothing while a write is in
  // flight, and what that write leaves below a chunk then waits for the next line: so the timer
  // flushes for as long as anything is left, not once per line written. A stdout that takes
  // nothing (a reader gone: EPIPE, which pino turns into silence) would keep it flushing forever,
  // so it stops after FUTILE_FLUSHES in a row that wrote nothing, until the next line or write.
  let pending = 0;
  let futile = 0;
  out.on('write', (n: number) => {
    pending -= n;
    futile = 0;
  });
  setInterval(() => {
    if (pending <= 0 || futile >= FUTILE_FLUSHES) return;
    futile++;
    out.flush();
  }, FLUSH_EVERY_MS).unref();
  return {
    write(line: string) {
      out.write(line);
      pending += Buffer.byteLength(line);
      futile = 0;
    },
    flush(done) {
      out.flush(done);
    },
  };
}
