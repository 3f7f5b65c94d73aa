// Scenarios promise exact numbers ("142 bookings in studio-b, 7–20 Sep"). After the random
// phases, drop or add one-offs in that room and those dates until the count is exact.
import type { Rng } from './prng.ts';
import { removeDraft, type GenContext } from './gen-context.ts';
import { tryOneOff } from './place-one-offs.ts';

export interface PinCount {
  roomId: string;
  /** Local dates, inclusive. */
  from: string;
  to: string;
  /** Exact number of confirmed bookings of the room on those dates. */
  confirmed: number;
}

export function pinCount(ctx: GenContext, rng: Rng, pin: PinCount): void {
  const room = ctx.rooms.find((r) => r.id === pin.roomId);
  if (!room) throw new Error(`pin: unknown room ${pin.roomId}`);
  const days = ctx.days.filter((d) => d.date >= pin.from && d.date <= pin.to);
  // Bookings lie within one local day, so "overlaps the window" is "its date is in the range".
  const inRange = () =>
    ctx.drafts.filter(
      (d) => d.roomId === pin.roomId && d.status === 'confirmed' && d.date >= pin.from && d.date <= pin.to,
    );

  let current = inRange();
  while (current.length > pin.confirmed) {
    const droppable = current.filter((d) => d.origin === 'one-off');
    if (droppable.length === 0) throw new Error(`pin: cannot drop below ${current.length} in ${pin.roomId}`);
    removeDraft(ctx, rng.pick(droppable));
    current = inRange();
  }
  for (let attempt = 0; current.length < pin.confirmed; attempt++) {
    if (attempt > 5000) throw new Error(`pin: ${pin.roomId} has no room for ${pin.confirmed} bookings`);
    const draft = tryOneOff(ctx, rng, room, rng.pick(days), true);
    if (draft?.status === 'confirmed') current = inRange();
  }
}
