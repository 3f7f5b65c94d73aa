import type { SolveProgress } from '@reflow/solver';
import type { ReflowInput } from './reflow-args.ts';
import { humanRange } from './local-time.ts';

/** The sentence a person watching the task wants to read. */
export function progressMessage(input: ReflowInput, affected: number, p?: SolveProgress): string {
  const head = `Reflowing ${affected} bookings in ${input.offlineRooms.join(', ')}, ${humanRange(input.from, input.to)}`;
  if (!p) return `${head}: solving`;
  return `${head}: ${p.componentsDone} of ${p.componentsTotal} groups solved, ${p.movedSoFar} moved so far`;
}
