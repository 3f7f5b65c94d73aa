// Migrations on PostgreSQL: drizzle-kit's SQL files from migrations/postgres, applied in ONE
// transaction under a transaction advisory lock, so nodes starting together take turns (the later
// ones find it done), with the seed of an empty site in the same transaction. drizzle's own
// migrator takes no lock. The bookkeeping is drizzle's (drizzle.__drizzle_migrations, by folder time).
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { findMigrationsFolder } from '../migrate.ts';
import { LOCK_CLASS, type PgDb } from './pg-db.ts';

let defaultFolder: string | undefined;
/** migrations/postgres, next to SQLite's migrations/. */
export const postgresMigrationsFolder = () => (defaultFolder ??= join(findMigrationsFolder(), 'postgres'));

let known: MigrationMeta[] | undefined;
const knownMigrations = () => (known ??= readMigrationFiles({ migrationsFolder: postgresMigrationsFolder() }));

/** A database migrated by a newer build than this one: running on it could misread its rows. */
export class SchemaTooNewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaTooNewError';
  }
}

const BOOKKEEPING = sql`drizzle.__drizzle_migrations`;

/** Applies what is pending in `tx` (a transaction), after taking the migration lock. */
export async function migrateInTransaction(tx: PgDb, location: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_CLASS.migrate}, 0)`);
  await tx.execute(sql`create schema if not exists drizzle`);
  await tx.execute(
    sql`create table if not exists ${BOOKKEEPING} (id serial primary key, hash text not null, created_at bigint)`,
  );
  const migrations = knownMigrations();
  const applied = (
    await tx.execute<{ created_at: string }>(sql`select created_at from ${BOOKKEEPING} order by created_at`)
  ).rows.map((r) => Number(r.created_at));
  const newest = migrations.at(-1)?.folderMillis ?? 0;
  const unknown = applied.filter((at) => !migrations.some((m) => m.folderMillis === at));
  if (unknown.length || applied.length > migrations.length)
    throw new SchemaTooNewError(
      `The database ${location} has ${applied.length} migrations applied, ${unknown.length} of them unknown to this build ` +
        `(newest applied ${new Date(Math.max(...applied)).toISOString()}, newest known ${new Date(newest).toISOString()}): ` +
        'it was migrated by a newer version; run that version (or newer) instead',
    );
  const last = applied.at(-1) ?? -1;
  for (const migration of migrations) {
    if (migration.folderMillis <= last) continue;
    for (const statement of migration.sql) if (statement.trim()) await tx.execute(sql.raw(statement));
    await tx.execute(
      sql`insert into ${BOOKKEEPING} (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
    );
  }
}

/** Whether every migration this build knows has been applied (false when none has). */
export async function postgresMigrationsApplied(db: PgDb): Promise<boolean> {
  const exists = await db.execute<{ present: boolean }>(
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!exists.rows[0].present) return knownMigrations().length === 0;
  const [{ n }] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from ${BOOKKEEPING}`)).rows;
  return n >= knownMigrations().length;
}
