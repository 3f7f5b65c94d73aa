import { TASK_STATUSES, type TaskListCursor, type TaskListFilter, type TaskStatus } from '@reflow/db';
import { BadFilterError } from './api-errors.ts';

export interface TaskListQuery {
  status?: string;
  kind?: string;
  since?: string;
  awaiting?: 'operator';
  limit: number;
  cursor?: string;
}

export const taskListQuerySchema = {
  type: 'object',
  properties: {
    status: {
      type: 'string',
      maxLength: 200,
      description: `One status or several, comma-separated: ${TASK_STATUSES.join(', ')}`,
    },
    kind: { type: 'string', minLength: 1, maxLength: 100, description: 'Task kind, e.g. reflow_month' },
    since: {
      type: 'string',
      maxLength: 40,
      description: 'Only tasks created at or after this ISO 8601 instant (or date)',
    },
    awaiting: {
      type: 'string',
      enum: ['operator'],
      description:
        "Only reflows waiting for an operator's decision (APPROVAL=operator); they are `working` to their client",
    },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size' },
    cursor: { type: 'string', maxLength: 300, description: 'nextCursor of the previous page' },
  },
} as const;

/** Turns the query string into a filter, refusing anything it cannot honour with a message naming it. */
export function parseTaskListQuery(query: TaskListQuery): { filter: TaskListFilter; after?: TaskListCursor } {
  const filter: TaskListFilter = {};
  if (query.status !== undefined) {
    const statuses = query.status
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = statuses.filter((s) => !(TASK_STATUSES as readonly string[]).includes(s));
    if (statuses.length === 0 || unknown.length)
      throw new BadFilterError(
        `status: unknown status ${JSON.stringify(unknown[0] ?? query.status)}; use ${TASK_STATUSES.join(', ')}`,
      );
    filter.statuses = statuses as TaskStatus[];
  }
  if (query.kind !== undefined) filter.kind = query.kind;
  if (query.awaiting !== undefined) filter.awaiting = query.awaiting;
  if (query.since !== undefined) {
    const ms = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(query.since)
      ? Date.parse(query.since)
      : NaN;
    if (Number.isNaN(ms))
      throw new BadFilterError(
        `since: ${JSON.stringify(query.since)} is not an ISO 8601 date or instant, e.g. 2026-09-01T00:00:00Z`,
      );
    filter.createdSince = ms;
  }
  return { filter, after: query.cursor === undefined ? undefined : decodeCursor(query.cursor) };
}

export function encodeCursor(cursor: TaskListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

function decodeCursor(text: string): TaskListCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Number.isInteger(createdAt) && typeof id === 'string') return { createdAt, id };
  } catch {
    // fall through to the error below
  }
  throw new BadFilterError('cursor: not a cursor this server handed out; pass nextCursor from the previous page');
}
