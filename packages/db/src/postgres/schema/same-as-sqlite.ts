// Compile-time proof that a row reads the same from either store: each PostgreSQL table's row type
// equals its SQLite twin's (TaskRow and the others are defined from the SQLite schema).
import type * as sqlite from '../../schema/index.ts';
import type * as postgres from './index.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Rows<T extends { $inferSelect: unknown }> = T['$inferSelect'];
type Inserts<T extends { $inferInsert: unknown }> = T['$inferInsert'];

export type RowsMatch = [
  Same<Rows<typeof postgres.tasks>, Rows<typeof sqlite.tasks>>,
  Same<Rows<typeof postgres.taskEvents>, Rows<typeof sqlite.taskEvents>>,
  Same<Rows<typeof postgres.taskInputs>, Rows<typeof sqlite.taskInputs>>,
  Same<Rows<typeof postgres.bookings>, Rows<typeof sqlite.bookings>>,
  Same<Rows<typeof postgres.rooms>, Rows<typeof sqlite.rooms>>,
  Same<Rows<typeof postgres.series>, Rows<typeof sqlite.series>>,
  Same<Rows<typeof postgres.site>, Rows<typeof sqlite.site>>,
  Same<Rows<typeof postgres.reflowMoves>, Rows<typeof sqlite.reflowMoves>>,
  Same<Rows<typeof postgres.reflowUnresolved>, Rows<typeof sqlite.reflowUnresolved>>,
  Same<Rows<typeof postgres.expiredTasks>, Rows<typeof sqlite.expiredTasks>>,
  Same<Rows<typeof postgres.nodes>, Rows<typeof sqlite.nodes>>,
  Same<Rows<typeof postgres.principalBuckets>, Rows<typeof sqlite.principalBuckets>>,
  Same<Inserts<typeof postgres.bookings>, Inserts<typeof sqlite.bookings>>,
  Same<Inserts<typeof postgres.rooms>, Inserts<typeof sqlite.rooms>>,
  Same<Inserts<typeof postgres.series>, Inserts<typeof sqlite.series>>,
];
// Fails to compile when any of them differs.
export const rowsMatch: RowsMatch = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];
