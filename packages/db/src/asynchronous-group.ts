// A Store group over its synchronous SQLite queries (queries/synchronous.ts): each method, called,
// runs its query on the connection's turn, `write` for the methods that write (their commit made
// durable off the event loop, sqlite-store.ts) and `run` for the rest. What writes is the one thing
// said per method; the arguments pass through as the Store interface declares them.
import type { Synchronous } from './queries/synchronous.ts';

export type Turn = <T>(fn: () => T) => Promise<T>;

export function asynchronousGroup<G extends object>(
  group: () => Synchronous<G>,
  writes: ReadonlySet<keyof G>,
  turns: { run: Turn; write: Turn },
): G {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy({} as G, {
    get(_, key) {
      // Never a thenable, and nothing that is not a method name.
      if (typeof key !== 'string' || key === 'then') return undefined;
      let method = methods.get(key);
      if (!method) {
        const turn = writes.has(key as keyof G) ? turns.write : turns.run;
        method = (...args: unknown[]) => turn(() => (group()[key as keyof G] as (...a: unknown[]) => unknown)(...args));
        methods.set(key, method);
      }
      return method;
    },
  });
}
