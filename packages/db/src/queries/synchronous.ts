// A group of the Store interface as SQLite runs it: the same methods and arguments, answering at
// once (better-sqlite3 runs each statement to the end on the calling thread). SqliteStore makes each
// an asynchronous Store method that waits its turn on the connection (sqlite-store.ts).

/** `T`'s methods, each returning what its promise resolves with. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};
