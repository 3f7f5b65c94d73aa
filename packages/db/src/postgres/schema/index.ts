// The PostgreSQL schema: the same tables and columns as ../../schema (SQLite), so rows have the
// same types in both stores. Instants are bigint epoch ms; JSON columns are `json` (kept as written,
// nothing queries inside them, and unlike jsonb it accepts every string JSON.stringify writes).
export * from './site.ts';
export * from './rooms.ts';
export * from './series.ts';
export * from './bookings.ts';
export * from './tasks.ts';
export * from './task-events.ts';
export * from './reflow-audit.ts';
export * from './task-inputs.ts';
export * from './expired-tasks.ts';
export * from './nodes.ts';
export * from './principal-buckets.ts';
