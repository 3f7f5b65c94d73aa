import type { Queries, TaskEventRow, TaskRow } from '@reflow/db';
import { REFLOW_KIND, type ReflowInput, type ReflowResult } from '@reflow/reflow';
import { DateTime } from 'luxon';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A task row as the list shows it: everything but the (possibly large) result. */
export function toTaskSummary(row: TaskRow) {
  return {
    taskId: row.id,
    kind: row.kind,
    owner: row.owner,
    status: row.status,
    statusMessage: row.statusMessage,
    createdAt: iso(row.createdAt)!,
    lastUpdatedAt: iso(row.lastUpdatedAt)!,
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    expiresAt: iso(row.expiresAt)!,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    pollIntervalMs: row.pollIntervalMs,
    input: row.input,
  };
}

const span = (from: number | null, to: number | null) => (from !== null && to !== null ? to - from : null);

/** Everything an operator needs about one task: errors first, then timings, history and, for a reflow, what moved. */
export function toTaskDetail(row: TaskRow, events: TaskEventRow[], queries: Queries) {
  return {
    task: toTaskSummary(row),
    error: row.error ?? null,
    timings: { queuedMs: span(row.createdAt, row.startedAt), runMs: span(row.startedAt, row.finishedAt), totalMs: span(row.createdAt, row.finishedAt) },
    events: events.map((e) => ({ at: iso(e.at)!, attempt: e.attempt, kind: e.kind, message: e.message, data: e.data ?? undefined })),
    reflow: row.kind === REFLOW_KIND ? reflowDetail(row, queries) : null,
  };
}

/**
 * Moves and unresolved bookings: from the stored result when the task completed (titles and local
 * times included), otherwise from the audit tables (which outlive the task row's result).
 */
function reflowDetail(row: TaskRow, queries: Queries) {
  const input = row.input as ReflowInput;
  const base = { month: input.month, offlineRooms: input.offlineRooms, window: { from: input.from, to: input.to }, dryRun: input.dryRun };
  const result = row.status === 'completed' && row.result ? (JSON.parse(row.result).structuredContent as ReflowResult | undefined) : undefined;
  if (result) {
    const { moves, unresolvedBookings, moved, unresolved, affected, applied, totalShiftMinutes, movedBound, optimal } = result;
    return { ...base, source: 'result', summary: { moved, unresolved, affected, applied, totalShiftMinutes, movedBound, optimal }, moves, unresolvedBookings };
  }
  const moves = queries.audit.movesOf(row.id);
  const unresolved = queries.audit.unresolvedOf(row.id);
  if (moves.length === 0 && unresolved.length === 0) return { ...base, source: 'none', summary: null, moves: [], unresolvedBookings: [] };
  const zone = queries.site.getSite()?.timezone ?? 'UTC';
  const local = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true })!;
  const title = (id: string) => queries.bookings.get(id)?.title ?? id;
  return {
    ...base,
    source: 'audit',
    summary: null,
    moves: moves.map((m) => ({
      bookingId: m.bookingId,
      title: title(m.bookingId),
      fromRoom: m.fromRoom,
      toRoom: m.toRoom,
      fromStart: local(m.fromStart),
      toStart: local(m.toStart),
      shiftMinutes: m.shiftMinutes,
    })),
    unresolvedBookings: unresolved.map((u) => ({ bookingId: u.bookingId, title: title(u.bookingId), code: u.code, reason: u.reason })),
  };
}
