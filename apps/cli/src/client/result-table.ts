import type { ReflowResult } from '@reflow/reflow';
import Table from 'cli-table3';
import { optimality } from '../optimality.ts';

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
/** What a result needs to be shown as tables; a server of another version may leave out the rest. */
type ShownResult = Omit<ReflowResult, 'window' | 'offlineRooms' | 'optimal'> &
  Partial<Pick<ReflowResult, 'window' | 'offlineRooms' | 'optimal'>>;
const isReflow = (sc: Record<string, unknown>): sc is Record<string, unknown> & ShownResult =>
  Array.isArray(sc.moves) && Array.isArray(sc.unresolvedBookings) && typeof sc.moved === 'number';

/** A reflow result as a person reads it: a summary, the moves, and what needs rebooking and why. */
export function renderResult(structured: Record<string, unknown> | undefined, text: string | undefined): string {
  if (!structured || !isReflow(structured)) return text ?? JSON.stringify(structured, null, 2);
  const r = structured;
  const lines: string[] = [];
  const scope = r.window ? ` in ${r.offlineRooms?.join(', ')}, ${r.window.from} to ${r.window.to}` : '';
  lines.push(
    `${r.applied ? 'Moved' : 'Would move'} ${r.moved} of ${r.affected} bookings${scope}; ${r.unresolved} ${r.applied ? 'need' : 'would need'} rebooking${r.applied ? '' : ' (dry run: nothing was written)'}.`,
  );
  lines.push(
    `Total shift ${r.totalShiftMinutes} min${r.optimal ? `; ${optimality({ optimal: r.optimal, movedBound: r.movedBound })}` : ''}.`,
  );
  if (r.moves.length) {
    const moves = new Table({
      head: ['booking', 'from', 'to', 'shift', 'title'],
      style: { head: [], border: [] },
      wordWrap: true,
      colWidths: [null, null, null, null, 40] as never,
    });
    for (const m of r.moves) {
      moves.push([
        m.bookingId,
        `${when(m.fromStart)} ${m.fromRoom}`,
        `${when(m.toStart)} ${m.toRoom}`,
        m.shiftMinutes ? `${m.shiftMinutes > 0 ? '+' : ''}${m.shiftMinutes} min` : '',
        m.title,
      ]);
    }
    lines.push('', 'Moves', moves.toString());
  }
  if (r.unresolvedBookings.length) {
    const open = new Table({
      head: ['booking', 'title', 'why it could not move'],
      style: { head: [], border: [] },
      wordWrap: true,
      colWidths: [null, 30, 60] as never,
    });
    for (const u of r.unresolvedBookings) open.push([u.bookingId, u.title, u.reason]);
    lines.push('', 'Needs rebooking', open.toString());
  }
  return lines.join('\n');
}
