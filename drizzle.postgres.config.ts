import { defineConfig } from 'drizzle-kit';

// The PostgreSQL schema's migrations (drizzle.config.ts has SQLite's).
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/postgres/schema/index.ts',
  out: './migrations/postgres',
});
