// The WAL checkpointer's thread (wal-checkpointer.ts starts it): a connection of its own to the
// file that folds the WAL back into the database every `everyMs`, PASSIVE (it never waits for,
// nor blocks, the server's reads and writes). Plain JavaScript: a worker thread runs it as is,
// under tsx and from the build alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, everyMs } = workerData;
const db = new Database(path);
// A checkpoint syncs the WAL before it copies and the database after (FULL and NORMAL alike).
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');

const timer = setInterval(() => {
  // [busy, frames in the WAL, frames copied]: a checkpoint with nothing new to copy syncs nothing.
  const [row] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage({ checkpoint: row });
}, everyMs);

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
