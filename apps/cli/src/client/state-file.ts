// The CLI's memory of tasks it started: written before it starts waiting, so a client killed
// mid-wait can be resumed. Every write is a whole new file renamed over the old one: a reader (or
// a crash at any instant) sees the previous state or the next one, never half of either.
import { mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { withFileLock } from './file-lock.ts';

export type SavedStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' | 'expired';

/** The store of a `reflow mcp` the CLI started over stdio: a SQLite file (absolute) or a PostgreSQL URL. */
export type StdioStore = { database: string } | { databaseUrl: string };

/** What `reflow resume` needs to pick a task up again. Tokens and database passwords are never written here. */
export interface SavedTask {
  taskId: string;
  /** Created over HTTP: the server's /mcp URL. */
  url?: string;
  /** Created over stdio: the store the CLI's own `reflow mcp` opened (resume starts one on it again). */
  stdio?: StdioStore;
  tool: string;
  arguments: Record<string, unknown>;
  ttlMs: number | null;
  pollIntervalMs: number;
  createdAt: string;
  status: SavedStatus;
  statusMessage?: string;
  updatedAt: string;
}

interface StateDocument {
  version: 1;
  tasks: SavedTask[];
}

/** `--state-file`, else $REFLOW_STATE_FILE, else ~/.reflow/tasks.json. */
export function stateFilePath(option?: string): string {
  return option ?? process.env.REFLOW_STATE_FILE ?? join(homedir(), '.reflow', 'tasks.json');
}

export const isUnfinished = (t: SavedTask) => t.status === 'working' || t.status === 'input_required';

export class StateFile {
  constructor(readonly path: string) {}

  read(): SavedTask[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // Whatever the file holds, checked below: it may not be ours.
    const doc = JSON.parse(text) as Partial<StateDocument> | null;
    if (!doc || !Array.isArray(doc.tasks)) throw new Error(`${this.path} is not a reflow state file`);
    return doc.tasks;
  }

  find(taskId: string): SavedTask | undefined {
    return this.read().find((t) => t.taskId === taskId);
  }

  /** Adds or replaces one task's entry. */
  upsert(task: SavedTask): void {
    this.#update((tasks) => [...tasks.filter((t) => t.taskId !== task.taskId), task]);
  }

  /** Updates one task's status; a no-op when the task is not in the file. */
  mark(taskId: string, status: SavedStatus, statusMessage?: string): void {
    this.#update((tasks) => {
      const entry = tasks.find((t) => t.taskId === taskId);
      if (entry)
        Object.assign(
          entry,
          { status, updatedAt: new Date().toISOString() },
          statusMessage !== undefined ? { statusMessage } : {},
        );
      return entry ? tasks : undefined;
    });
  }

  /** Read, change, write under the file's lock, so concurrent CLI processes never drop each other's entries. */
  #update(change: (tasks: SavedTask[]) => SavedTask[] | undefined): void {
    mkdirSync(dirname(this.path), { recursive: true });
    withFileLock(this.path, () => {
      const next = change(this.read());
      if (next) this.#write({ version: 1, tasks: next });
    });
  }

  #write(doc: StateDocument): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    // Flush the bytes before the rename makes them the file: a power cut must not leave it empty.
    const fd = openSync(temp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
  }
}
