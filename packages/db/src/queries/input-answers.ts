// The input_required steps both stores run, written once. A park opens a round of questions, keyed
// `r<round>-<name>` so a key is never reused over the task's life. A delivery of answers records each
// answer to a pending key under its request's name, and the key leaves `pending`; unknown and
// already-answered keys are ignored. The task runs again once nothing is pending.
import type { TransitionEvent } from '../lifecycle/task-transitions.ts';
import type { TaskInputRow } from './input-queries.ts';

/** The next round of questions after `previousRound` (none yet: undefined), keyed by round and name. */
export function nextRound(
  previousRound: number | undefined,
  requests: Record<string, unknown>,
): { round: number; pending: TaskInputRow['pending'] } {
  const round = (previousRound ?? 0) + 1;
  const pending = Object.fromEntries(
    Object.entries(requests).map(([name, request]) => [`r${round}-${name}`, { name, request }]),
  );
  return { round, pending };
}

/** The park's event: the keys asked, and the party a hold waits on. */
export const parkedEvent = (
  message: string,
  pending: TaskInputRow['pending'],
  awaiting: string | undefined,
): TransitionEvent => ({
  kind: 'input_required',
  message,
  data: { keys: Object.keys(pending), ...(awaiting ? { awaiting } : {}) },
});

/** The answer's event: who answered, how many keys, and the party a hold waited on. */
export const answeredEvent = (
  message: string,
  by: string,
  accepted: number,
  awaiting: string | undefined,
): TransitionEvent => ({
  kind: 'input_received',
  message,
  data: { by, keys: accepted, ...(awaiting ? { awaiting } : {}) },
});

export interface AnswersTaken {
  pending: TaskInputRow['pending'];
  responses: TaskInputRow['responses'];
  accepted: number;
  resumed: boolean;
  /** The task's status message and the event's. */
  message: string;
}

export function takeAnswers(
  inputs: Pick<TaskInputRow, 'pending' | 'responses'>,
  answers: Record<string, unknown>,
): AnswersTaken {
  const pending = { ...inputs.pending };
  const responses = { ...inputs.responses };
  let accepted = 0;
  for (const [key, answer] of Object.entries(answers)) {
    if (!Object.hasOwn(pending, key)) continue;
    responses[pending[key].name] = answer;
    delete pending[key];
    accepted++;
  }
  const left = Object.keys(pending).length;
  const resumed = left === 0;
  return {
    pending,
    responses,
    accepted,
    resumed,
    message: resumed ? 'Answer received; resuming' : `Answer received; ${left} more awaited`,
  };
}
