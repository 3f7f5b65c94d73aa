// The database lost mid-run, or this node's connection pool exhausted, or a lock wait timed out:
// told apart from every other failure (the store's classifier, @reflow/db storeTrouble), so a
// request answers 503 at once with a message saying which.
import { storeTrouble, type StoreTrouble } from '@reflow/db';

/**
 * Unlike a timed-out wait (rolled back) or an exhausted pool (nothing begun), a connection lost while
 * a write commits leaves its outcome unknown: a create retried with the same arguments finds its task.
 */
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is unreachable; a write this request made may or may not have been kept (a create retried with the same arguments finds its task). Retry shortly (see /readyz)';

const ANSWERS: Record<StoreTrouble, { code: string; message: string }> = {
  unreachable: { code: 'RFL_DATABASE_UNAVAILABLE', message: DATABASE_UNAVAILABLE_MESSAGE },
  'pool exhausted': {
    code: 'RFL_POOL_EXHAUSTED',
    message:
      'Every database connection of this node is in use (pool exhausted; the database itself may be fine); nothing was changed by this request. Retry shortly',
  },
  busy: {
    code: 'RFL_DATABASE_BUSY',
    message:
      'The database is busy (a lock or statement wait timed out); nothing was changed by this request. Retry shortly',
  },
};

/** Whether `error` (or one of its causes) says the database cannot serve this request now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return storeTrouble(error) !== undefined;
}

/** The stable code and the message for a request that met `error` (one isDatabaseUnavailable accepts). */
export function databaseTrouble(error: unknown): { code: string; message: string } {
  return ANSWERS[storeTrouble(error) ?? 'unreachable'];
}
