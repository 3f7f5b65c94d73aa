// Types of postgres-for-tests.mjs, for the TypeScript tests that import it.
export function postgresBinDir(): string | undefined;
/** Starts the shared test server unless it runs already; resolves with its URL (without a database). */
export function startPostgres(options?: { durable?: boolean }): Promise<string>;
export function stopPostgres(): Promise<void>;
/** A fresh database on the shared test server (empty, or a copy of `template`), and how to drop it. */
export function createTestDatabase(
  prefix?: string,
  options?: { template?: string },
): Promise<{ url: string; name: string; drop(): Promise<void> }>;
export function testDatabaseExists(name: string): Promise<boolean>;
/** Renames `from` to `to`; false (and `from` dropped) when `to` exists already. */
export function publishTestDatabase(from: string, to: string): Promise<boolean>;
/** An extra server of its own, stoppable and startable again mid-test (same port and data). */
export function startExtraPostgres(name: string): Promise<{
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}>;
