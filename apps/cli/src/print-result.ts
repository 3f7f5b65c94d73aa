import type { ReflowResult } from '@reflow/reflow';
import type { McpHttpClient } from './mcp-http-client.ts';
import { optimality } from './optimality.ts';

type Result = ReflowResult;

const hhmm = (iso: string) => iso.slice(11, 16);
const day = (iso: string) => iso.slice(0, 10);

export function printReflowResult(r: Result): void {
  console.log(`\nmoved ${r.moved}, unresolved ${r.unresolved} (of ${r.affected} affected)`);
  console.log(
    `total shift ${r.totalShiftMinutes} min; ${optimality(r)}${r.applied ? '' : ' (dry run: nothing written)'}`,
  );
  console.log('\nMoves:');
  for (const m of r.moves) {
    const shift = m.shiftMinutes === 0 ? '' : ` (${m.shiftMinutes > 0 ? '+' : ''}${m.shiftMinutes} min)`;
    console.log(
      `  ${m.bookingId}  ${day(m.fromStart)} ${hhmm(m.fromStart)} ${m.fromRoom} → ${m.toRoom} ${hhmm(m.toStart)}${shift}  ${m.title}`,
    );
  }
  console.log('\nNeeds rebooking:');
  if (r.unresolvedBookings.length === 0) console.log('  none');
  for (const u of r.unresolvedBookings) console.log(`  ${u.bookingId}  ${u.title}: ${u.reason}`);
}

interface Booking {
  id: string;
  roomId: string;
  start: string;
  end: string;
  status: string;
}

/** Reads the month back through list_bookings and checks the story holds: nothing overlaps, nothing lost. */
export async function verifyMonth(
  client: McpHttpClient,
  scenario: { month: string },
  r: Result,
): Promise<{ ok: boolean; lines: string[] }> {
  const listed = await client.request<{ structuredContent: { bookings: Booking[] } }>('tools/call', {
    name: 'list_bookings',
    arguments: { month: scenario.month },
  });
  const bookings = listed.structuredContent.bookings;
  const confirmed = bookings
    .filter((b) => b.status === 'confirmed')
    .sort((a, b) => a.roomId.localeCompare(b.roomId) || Date.parse(a.start) - Date.parse(b.start));
  let overlaps = 0;
  for (let i = 1; i < confirmed.length; i++)
    if (
      confirmed[i].roomId === confirmed[i - 1].roomId &&
      Date.parse(confirmed[i].start) < Date.parse(confirmed[i - 1].end)
    )
      overlaps++;
  const byId = new Map(bookings.map((b) => [b.id, b]));
  const movedOk = r.moves.every(
    (m) =>
      byId.get(m.bookingId)?.roomId === m.toRoom && Date.parse(byId.get(m.bookingId)!.start) === Date.parse(m.toStart),
  );
  const flagged = r.unresolvedBookings.every((u) => byId.get(u.bookingId)?.status === 'needs_rebooking');
  const ok = overlaps === 0 && (!r.applied || (movedOk && flagged)) && r.moved + r.unresolved === r.affected;
  return {
    ok,
    lines: [
      '\nChecked through list_bookings:',
      `  ${overlaps === 0 ? '✓' : '✗'} no two confirmed bookings overlap in any room (${confirmed.length} confirmed)`,
      `  ${movedOk ? '✓' : '✗'} every move is in the table`,
      `  ${flagged ? '✓' : '✗'} every unresolved booking is marked needs_rebooking`,
      `  ${r.moved + r.unresolved === r.affected ? '✓' : '✗'} moved ${r.moved} + unresolved ${r.unresolved} = ${r.affected} affected`,
    ],
  };
}
