import { type StoreQueries, type TaskEventRow, type TaskRow } from '@reflow/db';
import { OPERATOR, pendingOperatorApproval, REFLOW_KIND, type ReflowInput, type ReflowResult } from '@reflow/reflow';

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
    awaitingApproval: row.status === 'working' && row.heldFor === OPERATOR,
    input: row.input,
  };
}

const span = (from: number | null, to: number | null) => (from !== null && to !== null ? to - from : null);

/**
 * Everything an operator needs about one task: errors first, then timings, history, what it waits
 * on (any kind held for an operator: a reflow or a client's revert) and, for a reflow, what moved.
 */
export async function toTaskDetail(row: TaskRow, events: TaskEventRow[], store: StoreQueries) {
  const pending =
    row.status === 'working' && row.heldFor === OPERATOR ? await pendingOperatorApproval(row.id, store) : undefined;
  return {
    task: toTaskSummary(row),
    error: row.error ?? null,
    timings: {
      queuedMs: span(row.createdAt, row.startedAt),
      runMs: span(row.startedAt, row.finishedAt),
      totalMs: span(row.createdAt, row.finishedAt),
    },
    events: events.map((e) => ({
      at: iso(e.at)!,
      attempt: e.attempt,
      kind: e.kind,
      message: e.message,
      data: e.data ?? undefined,
    })),
    attempts: attemptsOf(events),
    approval: pending ? { since: iso(pending.since)!, message: pending.request.message } : null,
    reflow: row.kind === REFLOW_KIND ? await reflowDetail(row, store, pending) : null,
  };
}

/** Each attempt and the node that ran it: the claimant its `claimed` event recorded. */
function attemptsOf(events: TaskEventRow[]) {
  return events
    .filter((e) => e.kind === 'claimed')
    .map((e) => {
      const by = (e.data as { by?: unknown } | null | undefined)?.by;
      return { attempt: e.attempt, node: typeof by === 'string' ? by : null, startedAt: iso(e.at)! };
    });
}

/**
 * The request, and once completed its summary, moves and unresolved bookings (from the stored
 * result: titles and local times included), with how many of each the audit tables hold for the
 * task: the rows written in the same transaction as the moves (none for a dry run).
 */
async function reflowDetail(
  row: TaskRow,
  store: StoreQueries,
  pending: Awaited<ReturnType<typeof pendingOperatorApproval>>,
) {
  const input = row.input as ReflowInput;
  const result =
    row.status === 'completed' && row.result
      ? (JSON.parse(row.result).structuredContent as ReflowResult | undefined)
      : undefined;
  const [movedRows, unresolvedRows] = await Promise.all([
    store.audit.movesOf(row.id),
    store.audit.unresolvedOf(row.id),
  ]);
  const audit = { moves: movedRows.length, unresolved: unresolvedRows.length };
  const base = {
    month: input.month,
    offlineRooms: input.offlineRooms,
    window: { from: input.from, to: input.to },
    dryRun: input.dryRun,
    audit,
    awaitingApproval: pending ? { since: iso(pending.since)!, message: pending.request.message } : null,
    operatorDecision: result?.operatorDecision ?? null,
  };
  // While it waits, the plan shown is the proposal the operator decides on.
  const shown = result ?? pending?.request.proposal;
  if (!shown) return { ...base, summary: null, moves: [], unresolvedBookings: [] };
  const { moves, unresolvedBookings, moved, unresolved, affected, applied, totalShiftMinutes, movedBound, optimal } =
    shown;
  return {
    ...base,
    summary: { moved, unresolved, affected, applied, totalShiftMinutes, movedBound, optimal },
    moves,
    unresolvedBookings,
  };
}
