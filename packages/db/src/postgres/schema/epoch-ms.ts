import { bigint } from 'drizzle-orm/pg-core';

/** An instant in epoch milliseconds: bigint in the database, a JS number in rows (as on SQLite). */
export const epochMs = (name: string) => bigint(name, { mode: 'number' });
