// Types of test-store.mjs, for the TypeScript tests that import it.
export const TEST_STORES: readonly ['sqlite', 'postgres'];
export function testStoreName(): 'sqlite' | 'postgres';
export function onPostgres(): boolean;
export function sqliteOnly(reason: string): { skip?: string };
/** node:test's functions, skipped with `reason` on PostgreSQL (hooks do nothing there). */
export function sqliteOnlyFile(reason: string): typeof import('node:test');
export function postgresOnly(reason: string): { skip?: string };
export interface FreshTestDatabase {
  /** A SQLite file path, or a postgres:// URL. */
  location: string;
  /** DATABASE_PATH or DATABASE_URL for a server on it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}
export function freshTestDatabase(): Promise<FreshTestDatabase>;
/** A fresh database that `build(location)` filled; under `npm test`, a copy of the run's template `key`. */
export function builtTestDatabase(key: string, build: (location: string) => Promise<void>): Promise<FreshTestDatabase>;
export function databaseEnv(location: string): Record<string, string>;
export const MOVES_THE_CLOCK: string;
export const SAME_HOST_PIDS: string;
export const SQLITE_PRAGMAS: string;
export const SQLITE_QUERY_PLANS: string;
