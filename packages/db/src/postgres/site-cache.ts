// The site and its room ids as last read, for the reads every create makes (the site's time zone for
// its scope, the room ids its arguments name): read once per site generation instead of per create.
// An import on this node drops it at once; an import on another node drops it when its NOTIFY
// arrives ('site:<generation>', sent inside the import's transaction); and, should that signal be
// lost (the LISTEN connection down), it is read again after MAX_AGE_MS anyway. The apply never reads
// through it: it reads the site's generation under lock (lockedGeneration) and refuses a changed one.
import type { SiteRow } from '../queries/site-queries.ts';

const MAX_AGE_MS = 1000;

interface Snapshot {
  site: SiteRow | undefined;
  roomIds: string[];
  known: ReadonlySet<string>;
}

export class SiteCache {
  #snapshot: Promise<Snapshot> | undefined;
  #readAt = 0;

  constructor(private readonly read: () => Promise<{ site: SiteRow | undefined; roomIds: string[] }>) {}

  get(): Promise<Snapshot> {
    if (!this.#snapshot || performance.now() - this.#readAt > MAX_AGE_MS) {
      this.#readAt = performance.now();
      const snapshot = this.read().then(({ site, roomIds }) => ({ site, roomIds, known: new Set(roomIds) }));
      // A failed read is not kept: the next call reads again.
      snapshot.catch(() => {
        if (this.#snapshot === snapshot) this.#snapshot = undefined;
      });
      this.#snapshot = snapshot;
    }
    return this.#snapshot;
  }

  invalidate(): void {
    this.#snapshot = undefined;
  }
}
