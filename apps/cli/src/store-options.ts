// Choosing the store from the command line, as the server does from its environment:
// --database-url (PostgreSQL; default $DATABASE_URL) or --database (a SQLite file; default $DATABASE_PATH).
import { Option } from 'commander';

export interface StoreOptions {
  database?: string;
  databaseUrl?: string;
}

/** --database: the SQLite file. */
export const databaseOption = (help: string) => new Option('--database <path>', help);

/** --database-url: PostgreSQL; given with --database, commander refuses with an error naming both. */
export const databaseUrlOption = () =>
  new Option('--database-url <url>', 'PostgreSQL connection URL (default: $DATABASE_URL)').conflicts('database');

/**
 * The environment for the store a flag chose: the other store's variable is blanked (an empty
 * variable counts as unset), so a flag overrides whatever the environment says.
 */
export function storeEnv(options: StoreOptions): Record<string, string> {
  if (options.database !== undefined && options.databaseUrl !== undefined)
    throw new Error('--database (a SQLite file) and --database-url (PostgreSQL) choose different stores: give one');
  if (options.databaseUrl !== undefined) return { DATABASE_URL: options.databaseUrl, DATABASE_PATH: '' };
  if (options.database !== undefined) return { DATABASE_PATH: options.database, DATABASE_URL: '' };
  return {};
}
