import type { ReflowResult } from '@reflow/reflow';

/** How far each objective level of a plan is proven, in the same words wherever a result is printed. */
export function optimality({ optimal, movedBound }: Pick<ReflowResult, 'optimal' | 'movedBound'>): string {
  const proven = (yes: boolean) => (yes ? 'proven optimal' : 'best found');
  return `moved count ${optimal.moved ? 'proven optimal' : `at most ${movedBound}`}, shift ${proven(optimal.shift)}, series split ${proven(optimal.series)}`;
}
