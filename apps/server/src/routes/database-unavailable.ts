// The database lost mid-run: the errors that mean "unreachable" (refused, dropped, shutting down),
// told apart from every other failure, so a request answers 503 with a clear message at once.

/** Socket errors, and PostgreSQL's connection-exception (08…) and operator-intervention shutdown classes. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03)$/;
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|did not answer within/i;

export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is unreachable; nothing was changed by this request. Retry shortly (see /readyz)';

/** Whether `error` (or one of its causes) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}
