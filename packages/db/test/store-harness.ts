// The two stores the contract suite runs its cases on: a SQLite file in a temp directory, and a
// fresh database on the throwaway PostgreSQL server (scripts/postgres-for-tests.mjs). `second()`
// opens another store on the same data: another process on SQLite, another node on PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createTestDatabase } from '../../../scripts/postgres-for-tests.mjs';
import { openPostgresStore, openSqliteStore, type PostgresStore, type SiteData, type Store } from '../src/index.ts';

export interface OpenedStore<S extends Store = Store> {
  store: S;
  /** Another store instance on the same database (migrated already). */
  second: () => Promise<S>;
  url?: string;
  done: () => Promise<void>;
}

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated store (seeded with `site` when given). */
  open(options?: { seed?: () => SiteData }): Promise<OpenedStore>;
}

export const sqliteKind: StoreKind = {
  name: 'sqlite',
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-store-'));
    const path = join(dir, 'store.db');
    const store = openSqliteStore(path);
    await store.migrate(options);
    const others: Store[] = [];
    return {
      store,
      async second() {
        const other = openSqliteStore(path);
        others.push(other);
        return other;
      },
      async done() {
        for (const s of [store, ...others]) await s.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresKind = {
  name: 'postgres' as const,
  async open(options: { seed?: () => SiteData } = {}): Promise<OpenedStore<PostgresStore>> {
    const database = await createTestDatabase();
    const store = await openPostgresStore(database.url);
    await store.migrate(options);
    const others: PostgresStore[] = [];
    return {
      store,
      url: database.url,
      async second() {
        const other = await openPostgresStore(database.url);
        others.push(other);
        return other;
      },
      async done() {
        for (const s of [store, ...others]) await s.close().catch(() => {});
        await database.drop();
      },
    };
  },
};

/**
 * The stores the contract suites run on: both, or those REFLOW_STORE_KINDS names (the mutation run,
 * scripts/mutation.mjs, runs them on SQLite alone: it has no PostgreSQL).
 */
export const STORE_KINDS: StoreKind[] = [sqliteKind, postgresKind].filter(
  (kind) => !process.env.REFLOW_STORE_KINDS || process.env.REFLOW_STORE_KINDS.split(',').includes(kind.name),
);

/**
 * An `open` for the tests of one describe block: each call a fresh store of `kind`, all of them
 * closed (and their files or databases removed) after the block. Call it inside the describe.
 */
export function opener(kind: StoreKind): StoreKind['open'] {
  const opened: OpenedStore[] = [];
  after(async () => {
    for (const o of opened) await o.done();
  });
  return async (options) => {
    const o = await kind.open(options);
    opened.push(o);
    return o;
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A task to create; ids unique within the process. */
export function newTask(over: Partial<Parameters<Store['tasks']['createOrFind']>[0]> = {}) {
  const id = over.id ?? `tsk_${process.pid}_${++counter}`;
  return {
    id,
    owner: 'alice',
    kind: 'reflow_month',
    input: { n: id },
    dedupeKey: `key-${id}`,
    statusMessage: 'Queued',
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    maxAttempts: 3,
    ...over,
  };
}

/** A small site: two rooms and three bookings on one day. */
export function smallSite(): SiteData {
  const day = Date.UTC(2026, 8, 1);
  const hour = 3_600_000;
  const room = (id: string) => ({
    id,
    name: id,
    capacity: 6,
    features: ['piano'],
    opensAt: '08:00',
    closesAt: '22:00',
  });
  const booking = (id: string, roomId: string, start: number, end: number) => ({
    id,
    roomId,
    startAt: day + start * hour,
    endAt: day + end * hour,
    title: `Session ${id}`,
    customer: 'Riverside',
    attendees: 3,
    requiredFeatures: ['piano'],
  });
  return {
    site: { name: 'Riverside', timezone: 'Europe/London' },
    rooms: [room('studio-a'), room('studio-b')],
    series: [],
    bookings: [
      booking('bk-1', 'studio-a', 9, 11),
      booking('bk-2', 'studio-a', 12, 13),
      booking('bk-3', 'studio-b', 9, 10),
    ],
  };
}
