import { fileURLToPath } from 'node:url';
import type { Store } from '@reflow/db';
import type { Plan, SolveProgress } from '@reflow/solver';
import type { Applied, ApplyHooks } from './apply-plan.ts';
import { newStopFlag, PermanentTaskError, raiseStopFlag, type TaskHandler, type TaskOutcome } from '@reflow/tasks';
import { applyPlan } from './apply-plan.ts';
import { appliedMeta, appliedVersions } from './applied-versions.ts';
import {
  APPROVAL,
  approvalQuestion,
  approvalRequest,
  approved,
  keepForApproval,
  keepPlanned,
  type AwaitingApproval,
} from './approval-gate.ts';
import type { ReflowInput } from './reflow-args.ts';
import { toCallToolResult, unresolvedPhrase, type ReflowResult } from './reflow-result.ts';
import { humanRange, toLocalIso } from './local-time.ts';
import { localisePlan } from './localise-reasons.ts';
import { progressMessage } from './progress-message.ts';
import { readSnapshot, reflowScope, type Snapshot } from './snapshot.ts';
import type { SolveJob, SolveReply } from './solve-worker.ts';
import { previewedPlan, previewMeta, readPreviewMeta, type StoredPreview } from './previewed-plan.ts';
import { awaitOperator, DECISION, readDecision, type OperatorDecision } from './operator-approval.ts';

export const REFLOW_KIND = 'reflow_month';

/** Source runs (tsx) load the .ts worker; the bundled build ships solve-worker.js beside the server. */
const WORKER_FILE = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './solve-worker.ts' : './solve-worker.js', import.meta.url),
);

export interface ReflowTaskOptions {
  store: Store;
  /** How long a cancelled solve may take to notice before its thread is terminated. */
  cancelGraceMs?: number;
  componentBudgetMs?: number;
  /** Test-only fault injection inside the apply transaction; never set in production. */
  applyHooks?: ApplyHooks;
  /** Told how long each solve and each apply took, in milliseconds (for metrics). */
  observe?: { solved?(ms: number): void; applied?(ms: number): void };
  /**
   * The solve worker's module; by default the one beside this module. The tests' in-process
   * servers pass the run's bundled worker, so no thread loads the sources through tsx.
   */
  workerFile?: string;
}

/** The reflow_month task: snapshot on the main thread, solve in a worker, apply with the terminal write. */
export function reflowTaskHandler(options: ReflowTaskOptions): TaskHandler<ReflowInput> {
  const { store } = options;
  return {
    kind: REFLOW_KIND,
    describe: (input) => `Queued: reflow ${input.offlineRooms.join(', ')}, ${humanRange(input.from, input.to)}`,
    // Overlapping reflows that apply run one after the other; the later one snapshots after the earlier applied.
    scope: (input) => reflowScope(input, store),
    async run(input, ctx) {
      const decision = ctx.resumed?.responses[DECISION];
      if (ctx.resumed && decision !== undefined) {
        const parked = ctx.resumed.state as AwaitingApproval;
        const decided = readDecision(decision);
        ctx.progress(
          `${decided.decision === 'approved' ? 'Approved' : 'Rejected'} by operator ${decided.by}${decided.reason ? `: ${decided.reason}` : ''}`,
          decided,
        );
        return finishOperatorDecision(input, ctx.taskId, parked, decided, options);
      }
      if (ctx.resumed)
        return finishApproval(
          input,
          ctx.taskId,
          ctx.resumed.state as AwaitingApproval,
          ctx.resumed.responses[APPROVAL],
          options,
        );
      if (input.planOf) {
        const preview = await store.tasks.get(input.planOf);
        const stored = preview?.result ? (JSON.parse(preview.result) as StoredPreview) : undefined;
        const result = stored?.structuredContent;
        if (!stored || !result || result.applied)
          throw new PermanentTaskError(`Dry run ${input.planOf} is gone (past its time-to-live) or was not a dry run`);
        ctx.progress(`Applying exactly the plan previewed by dry run ${input.planOf}`);
        const { plan, kept } = await previewedPlan(result, readPreviewMeta(stored), store);
        return applyOutcome(input, ctx.taskId, plan, kept, options);
      }
      const snapshot = await readSnapshot(input, store);
      const affected = countAffected(snapshot);
      ctx.progress(progressMessage(input, affected));
      const stopFlag = newStopFlag();
      const hardStop = new AbortController();
      const onAbort = () => {
        raiseStopFlag(stopFlag);
        setTimeout(() => hardStop.abort(ctx.signal.reason), options.cancelGraceMs ?? 2_000).unref();
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      let reply: SolveReply;
      const solveStart = performance.now();
      try {
        reply = await ctx.pool.run<SolveReply>(
          { problem: snapshot.problem, options: { componentBudgetMs: options.componentBudgetMs } } satisfies SolveJob,
          {
            filename: options.workerFile ?? WORKER_FILE,
            signal: hardStop.signal,
            stopFlag,
            onMessage: (p) => ctx.progress(progressMessage(input, affected, p as SolveProgress), p),
          },
        );
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
      }
      options.observe?.solved?.(performance.now() - solveStart);
      if (reply.cancelled || ctx.signal.aborted) throw ctx.signal.reason ?? new Error('solve stopped');
      const plan = localisePlan(reply.plan, snapshot.timezone);
      if (input.dryRun) {
        const result = buildResult(input, plan, plan, snapshot, false);
        const previewed = { ...toCallToolResult(result), _meta: previewMeta(keepPlanned(plan, snapshot)) };
        return { status: 'completed', result: previewed, message: summary(result) };
      }
      if (input.operatorApproval && !input.confirm) return awaitOperatorFor(input, plan, snapshot);
      if (input.confirm)
        return {
          status: 'input_required',
          requests: { [APPROVAL]: approvalRequest(input, plan) },
          state: keepForApproval(plan, snapshot),
          message: `Waiting for approval: ${approvalQuestion(input, plan)}`,
        };
      return applyOutcome(input, ctx.taskId, plan, snapshot, options);
    },
  };
}

/** Applies the plan in the transaction that records the terminal state; re-checks every booking first. */
function applyOutcome(
  input: ReflowInput,
  taskId: string,
  plan: Plan,
  kept: Kept,
  hooks: Hooks,
  approval?: 'accepted',
  operatorDecision?: OperatorDecision,
): TaskOutcome {
  return {
    status: 'completed',
    commit: async (tx) => {
      const applyStart = performance.now();
      const applied = await applyPlan(taskId, plan, kept, tx, hooks.applyHooks);
      hooks.observe?.applied?.(performance.now() - applyStart);
      const result = {
        ...buildResult(input, plan, applied, kept, true),
        ...(approval ? { approval } : {}),
        ...(operatorDecision ? { operatorDecision } : {}),
      };
      // A revert puts back only what is still as this apply left it: it compares these versions.
      const versions = await appliedVersions(applied, tx);
      return { result: { ...toCallToolResult(result), _meta: appliedMeta(versions) }, message: summary(result) };
    },
  };
}

/** After the approval question: yes applies the plan kept in the database (re-checked now), anything else applies nothing. */
function finishApproval(
  input: ReflowInput,
  taskId: string,
  parked: AwaitingApproval,
  answer: unknown,
  hooks: Hooks,
): TaskOutcome {
  if (approved(answer) && input.operatorApproval) return awaitOperatorFor(input, parked.plan, parked.kept);
  if (approved(answer)) return applyOutcome(input, taskId, parked.plan, parked.kept, hooks, 'accepted');
  const result = { ...buildResult(input, parked.plan, parked.plan, parked.kept, false), approval: 'declined' as const };
  return {
    status: 'completed',
    result: toCallToolResult(result),
    message: `Not applied: the plan was declined (${summary(result)})`,
  };
}

/** Parks the plan for an operator (after the client's own yes, when it asked to confirm). */
function awaitOperatorFor(input: ReflowInput, plan: Plan, kept: Kept): TaskOutcome {
  const parked = { plan, kept: keepPlanned(plan, kept) };
  const approval = input.confirm ? { approval: 'accepted' as const } : {};
  return awaitOperator(input, plan, parked, { ...buildResult(input, plan, plan, kept, false), ...approval });
}

/** Approved: the kept plan is applied, re-checked against the bookings as they are now. Rejected: nothing is. */
function finishOperatorDecision(
  input: ReflowInput,
  taskId: string,
  parked: AwaitingApproval,
  decision: OperatorDecision,
  hooks: Hooks,
): TaskOutcome {
  const approval = input.confirm ? ('accepted' as const) : undefined;
  if (decision.decision === 'approved')
    return applyOutcome(input, taskId, parked.plan, parked.kept, hooks, approval, decision);
  const result = {
    ...buildResult(input, parked.plan, parked.plan, parked.kept, false),
    ...(approval ? { approval } : {}),
    operatorDecision: decision,
  };
  return {
    status: 'completed',
    result: toCallToolResult(result),
    message: `Not applied: rejected by operator ${decision.by}${decision.reason ? ` (${decision.reason})` : ''}; ${summary(result)}`,
  };
}

function countAffected(s: Snapshot): number {
  const offline = new Set(s.problem.offlineRooms);
  const { start, end } = s.problem.window;
  return s.problem.bookings.filter((b) => offline.has(b.roomId) && b.start < end && b.end > start).length;
}

function summary(r: ReflowResult): string {
  return `${r.applied ? 'Moved' : 'Would move'} ${r.moved} of ${r.affected} bookings; ${unresolvedPhrase(r)}`;
}

type Kept = Pick<Snapshot, 'timezone' | 'versions' | 'bookings' | 'generation'>;
type Hooks = Pick<ReflowTaskOptions, 'observe' | 'applyHooks'>;

function buildResult(input: ReflowInput, plan: Plan, applied: Applied, s: Kept, written: boolean): ReflowResult {
  const title = (id: string) => (Object.hasOwn(s.bookings, id) ? s.bookings[id].title : id);
  return {
    moved: applied.moves.length,
    unresolved: applied.unresolved.length,
    affected: plan.affected,
    applied: written,
    month: input.month,
    offlineRooms: input.offlineRooms,
    window: { from: input.from, to: input.to },
    totalShiftMinutes: applied.moves.reduce((sum, m) => sum + Math.abs(m.shiftMinutes), 0),
    movedBound: plan.movedBound,
    optimal: plan.optimal,
    moves: applied.moves.map((m) => ({
      bookingId: m.bookingId,
      title: title(m.bookingId),
      fromRoom: m.fromRoom,
      toRoom: m.toRoom,
      fromStart: toLocalIso(m.fromStart, s.timezone),
      toStart: toLocalIso(m.toStart, s.timezone),
      shiftMinutes: m.shiftMinutes,
    })),
    unresolvedBookings: applied.unresolved.map((u) => ({
      bookingId: u.bookingId,
      title: title(u.bookingId),
      code: u.code,
      reason: u.reason,
    })),
  };
}
