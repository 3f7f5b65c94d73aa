// A PostgreSQL URL, checked before anything connects; and how it is named in logs (never the password).

export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUrlError';
  }
}

const SHAPE = 'postgres://user:password@host:port/database';

/** Checks `url` and returns where it points, as `host:port/database`. Throws DatabaseUrlError, naming no password. */
export function describeDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUrlError(`DATABASE_URL is not a URL; expected ${SHAPE}`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new DatabaseUrlError(
      `DATABASE_URL must start with postgres:// or postgresql:// (it starts with ${parsed.protocol}//); expected ${SHAPE}`,
    );
  if (!parsed.hostname) throw new DatabaseUrlError(`DATABASE_URL names no host; expected ${SHAPE}`);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database || database.includes('/'))
    throw new DatabaseUrlError(`DATABASE_URL names no database (or more than one path segment); expected ${SHAPE}`);
  return `${parsed.hostname}:${parsed.port || '5432'}/${database}`;
}
