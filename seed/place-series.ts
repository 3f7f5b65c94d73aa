// Weekly series: one room, one weekday, one local time, every week of the month. A week may be
// skipped (holidays) or cancelled, which is what real weekly diaries look like.
import type { Rng } from './prng.ts';
import type { RoomSpec } from './room-spec.ts';
import { NAMES } from './names.ts';
import { activitiesFor, addDraft, attendeesFor, hoursOf, pickStart, type GenContext } from './gen-context.ts';

export function placeSeries(ctx: GenContext, rng: Rng, room: RoomSpec, count: number, usedParties: Set<string>): void {
  const options = activitiesFor(room, true);
  if (options.length === 0 || count <= 0) return;
  const { opens, closes } = hoursOf(room);
  let placed = 0;
  for (let attempt = 0; attempt < count * 40 && placed < count; attempt++) {
    const act = rng.weighted(options, (a) => room.profile[a.kind] ?? 0);
    const weekday = rng.pick(act.days);
    const duration = rng.pick(act.durations);
    const start = pickStart(rng, [opens, closes], act.band, duration);
    if (start === null) continue;
    const dates = ctx.days.filter((d) => d.weekday === weekday).map((d) => d.date);
    if (!dates.every((date) => ctx.calendar.isFree(room.id, date, start, start + duration))) continue;

    // A weekly slot belongs to one party; prefer one that has no series yet.
    const pool = NAMES[act.party].filter((p) => !usedParties.has(p));
    const party = rng.pick(pool.length > 0 ? pool : NAMES[act.party]);
    usedParties.add(party);
    const key = ctx.series.length;
    const title = act.title(party, rng);
    const customer = ctx.customers.idFor(party);
    ctx.series.push({ key, title, customer });

    const attendees = attendeesFor(rng, act, room);
    const flexMinutes = rng.pick(act.flex);
    const skipped = dates.length > 2 && rng.chance(ctx.skipRate * dates.length) ? rng.int(0, dates.length - 1) : -1;
    dates.forEach((date, i) => {
      if (i === skipped) return;
      addDraft(ctx, {
        roomId: room.id,
        date,
        start,
        end: start + duration,
        title,
        customer,
        attendees,
        requiredFeatures: [...act.requires],
        flexMinutes,
        status: rng.chance(ctx.cancelRate) ? 'cancelled' : 'confirmed',
        seriesKey: key,
        origin: 'series',
      });
    });
    placed++;
  }
}
