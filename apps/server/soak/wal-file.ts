// The WAL file as the sampler sees it: its size, and the checkpoint sequence number from its
// header, which SQLite bumps each time a checkpoint lets it restart the log from the beginning
// (the file itself does not shrink without journal_size_limit, so size alone cannot show that).
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export interface WalState {
  bytes: number;
  /** Checkpoint sequence number (WAL header bytes 12–15); undefined when there is no header yet. */
  checkpointSeq?: number;
}

export function walState(databasePath: string): WalState {
  const path = `${databasePath}-wal`;
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch {
    return { bytes: 0 };
  }
  if (bytes < 32) return { bytes };
  const header = Buffer.alloc(32);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 32, 0);
  } finally {
    closeSync(fd);
  }
  return { bytes, checkpointSeq: header.readUInt32BE(12) };
}
