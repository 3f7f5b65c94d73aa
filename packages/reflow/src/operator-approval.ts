import type { StoreQueries } from '@reflow/db';
import type { Plan } from '@reflow/solver';
import type { TaskOutcome } from '@reflow/tasks';
import type { AwaitingApproval } from './approval-gate.ts';
import { humanRange } from './local-time.ts';
import type { ReflowInput } from './reflow-args.ts';
import type { ReflowResult } from './reflow-result.ts';

// APPROVAL=operator: a client's reflow that would apply moves solves, then waits for an operator's
// decision. It is the engine's parking (rows, held scope, no lease) with the question addressed to
// the operator, so toward the client it stays `working` with a sentence saying what it waits on.

/** Who answers (the engine's `awaiting`), and the handler's name for the one question. */
export const OPERATOR = 'operator';
export const DECISION = 'decision';

/** What the operator is asked: for a reflow, the plan as a not-yet-applied result, to show before and after. */
export interface OperatorApprovalRequest {
  kind: 'operator_approval';
  message: string;
  /** A reflow's plan; a revert has none (it decides what goes back when it runs). */
  proposal?: ReflowResult;
}

/** What the operator answered, as the result and the history record it. */
export interface OperatorDecision {
  decision: 'approved' | 'rejected';
  by: string;
  at: string;
  reason?: string;
}

export function operatorWaitMessage(input: ReflowInput, plan: Plan): string {
  const moves = `${plan.moves.length} move${plan.moves.length === 1 ? '' : 's'}`;
  const unresolved = `${plan.unresolved.length} booking${plan.unresolved.length === 1 ? '' : 's'} unresolved`;
  return `Waiting for an operator to approve: ${moves}, ${unresolved} (reflow ${input.offlineRooms.join(', ')}, ${humanRange(input.from, input.to)})`;
}

/** Parks the solved plan for the operator; `proposal` is the result it would give, applied: false. */
export function awaitOperator(
  input: ReflowInput,
  plan: Plan,
  kept: AwaitingApproval,
  proposal: ReflowResult,
): TaskOutcome {
  const message = operatorWaitMessage(input, plan);
  const request: OperatorApprovalRequest = { kind: 'operator_approval', message, proposal };
  return { status: 'input_required', awaiting: OPERATOR, requests: { [DECISION]: request }, state: kept, message };
}

/** The question a task held for an operator waits on, with its wire key; undefined when it waits on none. */
export async function pendingOperatorApproval(
  taskId: string,
  store: StoreQueries,
): Promise<{ key: string; request: OperatorApprovalRequest; since: number } | undefined> {
  const parked = await store.inputs.get(taskId);
  const entry = Object.entries(parked?.pending ?? {}).find(([, p]) => p.name === DECISION);
  if (!parked || !entry) return undefined;
  return { key: entry[0], request: entry[1].request as OperatorApprovalRequest, since: parked.parkedAt };
}

/** A decision as handed back to the resumed task; anything unreadable counts as a rejection. */
export function readDecision(answer: unknown): OperatorDecision {
  const a = answer as Partial<OperatorDecision> | undefined;
  const decision = a?.decision === 'approved' ? 'approved' : 'rejected';
  return {
    decision,
    by: typeof a?.by === 'string' ? a.by : 'unknown',
    at: typeof a?.at === 'string' ? a.at : new Date(0).toISOString(),
    ...(typeof a?.reason === 'string' && a.reason ? { reason: a.reason } : {}),
  };
}

/** The engine's side of a decision (answering a held task), so this module needs no engine class. */
export interface AnswersHeldTasks {
  answer(
    taskId: string,
    responses: Record<string, unknown>,
    by: string,
    awaiting?: string,
  ): Promise<{ accepted: number; resumed: boolean }>;
}

/**
 * Records an operator's decision on a reflow waiting for one; false when it is not waiting (never
 * was, already decided, cancelled or expired), in which case nothing changed.
 */
export async function decideReflow(
  engine: AnswersHeldTasks,
  store: StoreQueries,
  taskId: string,
  decision: OperatorDecision,
): Promise<boolean> {
  const pending = await pendingOperatorApproval(taskId, store);
  if (!pending) return false;
  return (await engine.answer(taskId, { [pending.key]: decision }, decision.by, OPERATOR)).resumed;
}
