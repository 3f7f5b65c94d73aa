// Task lists page newest first, by (created_at, id) descending: the rows after a page's last one,
// written once for both stores (either dialect's `tasks` columns).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

export const olderThan = (
  t: { createdAt: SQLWrapper; id: SQLWrapper },
  cursor: { createdAt: number; id: string },
): SQL =>
  sql`(${t.createdAt} < ${cursor.createdAt} or (${t.createdAt} = ${cursor.createdAt} and ${t.id} < ${cursor.id}))`;
