// The month as rooms × days. Each cell is that room's day as a small timeline (opening hours,
// left to right). "Before" puts moved bookings back where they were; "after" shows them where they
// went, with a dashed ghost left at the old slot. The offline window is hatched.
import { el, localDay, localDayLabel, localHm, localMinutes } from './format.js';

const hm = (text) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5));

function daysOf(month) {
  const [y, m] = month.split('-').map(Number);
  const n = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Array.from({ length: n }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`);
}

/** Where each booking sits in the chosen view, and how it should look. */
function placements({ reflow, bookings, mode }) {
  const moved = new Map(reflow.moves.map((m) => [m.bookingId, m]));
  const unresolved = new Map(reflow.unresolvedBookings.map((u) => [u.bookingId, u]));
  // A plan not written (a dry run, one awaiting approval) shows "after" at the planned slots.
  const written = reflow.summary?.applied === true;
  const out = [];
  for (const b of bookings) {
    if (b.status === 'cancelled') continue;
    const length = localMinutes(b.end) - localMinutes(b.start) + (localDay(b.end) > localDay(b.start) ? 1440 : 0);
    const move = moved.get(b.id);
    const u = unresolved.get(b.id);
    const base = { id: b.id, title: b.title, length };
    if (move && mode === 'before') {
      out.push({
        ...base,
        room: move.fromRoom,
        start: move.fromStart,
        kind: 'b-moved',
        note: `will move to ${move.toRoom} ${localDayLabel(move.toStart)} ${localHm(move.toStart)}`,
      });
    } else if (move) {
      out.push({
        ...base,
        room: written ? b.roomId : move.toRoom,
        start: written ? b.start : move.toStart,
        kind: 'b-moved',
        note: `${written ? 'moved' : 'would move'} from ${move.fromRoom} ${localDayLabel(move.fromStart)} ${localHm(move.fromStart)}${move.shiftMinutes ? ` (${move.shiftMinutes > 0 ? '+' : ''}${move.shiftMinutes} min)` : ''}`,
      });
      out.push({
        ...base,
        room: move.fromRoom,
        start: move.fromStart,
        kind: 'b-ghost',
        note: `moved away to ${move.toRoom}`,
      });
    } else if (u) {
      out.push({ ...base, room: b.roomId, start: b.start, kind: 'b-unresolved', note: u.reason });
    } else {
      out.push({
        ...base,
        room: b.roomId,
        start: b.start,
        kind: 'b-plain',
        note: b.status === 'needs_rebooking' ? 'needs rebooking (earlier reflow)' : '',
      });
    }
  }
  return out;
}

export function renderCalendar({ reflow, rooms, bookings, mode }) {
  const days = daysOf(reflow.month);
  const open = Math.min(...rooms.map((r) => hm(r.opensAt)));
  const close = Math.max(...rooms.map((r) => (r.closesAt === '24:00' ? 1440 : hm(r.closesAt))));
  const span = Math.max(60, close - open);
  const offline = new Set(reflow.offlineRooms);
  const inWindow = (day) => day >= reflow.window.from && day <= reflow.window.to;
  const cells = new Map();
  for (const p of placements({ reflow, bookings, mode })) {
    const key = `${p.room}|${localDay(p.start)}`;
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key).push(p);
  }
  const info = el('p', { class: 'cal-info', text: 'Click a booking for where it went.' });
  const grid = el('div', {
    class: `calendar mode-${mode}`,
    style: `--days:${days.length}`,
    'data-mode': mode,
    role: 'grid',
    'aria-label': mode === 'now' ? reflow.month : `${reflow.month}, ${mode} the reflow`,
  });
  grid.append(el('div', { class: 'cal-corner', text: { before: 'Before', after: 'After', now: 'Now' }[mode] }));
  for (const day of days) {
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    grid.append(
      el(
        'div',
        {
          class: `cal-day${inWindow(day) ? ' in-window' : ''}${weekday === 0 || weekday === 6 ? ' weekend' : ''}`,
          title: localDayLabel(day),
        },
        el('span', { text: String(Number(day.slice(8))) }),
        el('small', { text: 'SMTWTFS'[weekday] }),
      ),
    );
  }
  for (const room of rooms) {
    grid.append(
      el(
        'div',
        {
          class: `cal-room${offline.has(room.id) ? ' is-offline' : ''}`,
          title: `${room.name}: ${room.capacity} people; ${room.features.join(', ') || 'no special features'}`,
        },
        el('strong', { text: room.name }),
        el('small', { text: `${room.capacity} · ${room.opensAt}–${room.closesAt}` }),
      ),
    );
    for (const day of days) {
      const down = offline.has(room.id) && inWindow(day);
      const cell = el('div', {
        class: `cal-cell${down ? ' offline' : ''}`,
        'data-room': room.id,
        'data-day': day,
        title: down ? `${room.name} offline` : undefined,
      });
      for (const p of cells.get(`${room.id}|${day}`) ?? []) {
        const left = ((localMinutes(p.start) - open) / span) * 100;
        const width = Math.max(2, (p.length / span) * 100);
        const tip = `${p.id} · ${p.title}\n${room.name} ${localDayLabel(p.start)} ${localHm(p.start)}, ${p.length} min${p.note ? `\n${p.note}` : ''}`;
        cell.append(
          el('span', {
            class: `bk ${p.kind}`,
            'data-booking': p.id,
            style: `left:${left.toFixed(2)}%;width:${width.toFixed(2)}%`,
            title: tip,
            onclick: () => {
              grid.querySelectorAll('.linked').forEach((n) => n.classList.remove('linked'));
              grid.querySelectorAll(`[data-booking="${p.id}"]`).forEach((n) => n.classList.add('linked'));
              info.textContent = tip.replaceAll('\n', ' — ');
            },
          }),
        );
      }
      grid.append(cell);
    }
  }
  return el('div', { class: 'calendar-scroll' }, grid, info);
}
