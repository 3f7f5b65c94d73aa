// What a delivery of answers does to a parked task's inputs, the same on both stores: each answer
// to a pending key is recorded under its request's name and the key leaves `pending`; unknown and
// already-answered keys are ignored. The task runs again once nothing is pending.
import type { TaskInputRow } from './input-queries.ts';

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
