// A reflow's outcome: the numbers, the month before and after, what could not move and why, every move.
import { renderCalendar } from './calendar.js';
import { el, localDayLabel, localHm } from './format.js';

function stat(label, value, hint) {
  return el(
    'div',
    { class: 'stat' },
    el('div', { class: 'stat-value', text: String(value) }),
    el('div', { class: 'stat-label', text: label }),
    hint && el('div', { class: 'stat-hint', text: hint }),
  );
}

export function reflowSection(reflow, month, view, rerender, taskId, actions = {}) {
  const s = reflow.summary;
  const changed = reflow.moves.length + reflow.unresolvedBookings.length > 0;
  const toggle = (mode, label) =>
    el('button', {
      type: 'button',
      class: `seg${view.mode === mode ? ' active' : ''}`,
      'data-view': mode,
      'aria-pressed': String(view.mode === mode),
      text: label,
      onclick: () => ((view.mode = mode), rerender()),
    });
  return el(
    'section',
    { class: 'reflow' },
    el('h3', {
      text: `${reflow.offlineRooms.join(', ')} offline ${localDayLabel(reflow.window.from)} – ${localDayLabel(reflow.window.to)}${reflow.dryRun ? ' · dry run' : ''}`,
    }),
    s &&
      el(
        'div',
        { class: 'stats' },
        stat(
          'moved',
          `${s.moved} / ${s.affected}`,
          s.optimal.moved ? 'proven most possible' : `at most ${s.movedBound}`,
        ),
        stat('need rebooking', s.unresolved),
        stat('total shift', `${s.totalShiftMinutes} min`, s.optimal.shift ? 'proven least' : 'best found'),
        stat(
          'written',
          s.applied
            ? 'yes'
            : reflow.awaitingApproval
              ? 'not yet'
              : reflow.operatorDecision?.decision === 'rejected'
                ? 'no (rejected)'
                : 'no (dry run)',
          s.applied ? `${reflow.audit.moves + reflow.audit.unresolved} audit rows` : undefined,
        ),
      ),
    s &&
      reflow.dryRun &&
      !s.applied &&
      actions.onApplyPlan &&
      el(
        'div',
        { class: 'exports' },
        el('span', { class: 'muted', text: 'Happy with this preview?' }),
        el('button', {
          type: 'button',
          class: 'primary',
          'data-action': 'apply-plan',
          text: 'Apply exactly this plan',
          title: 'Writes these moves (re-checked now) instead of solving again; what changed meanwhile is reported',
          onclick: () => actions.onApplyPlan(taskId),
        }),
      ),
    s?.applied &&
      actions.onDownload &&
      el(
        'div',
        { class: 'exports' },
        el('span', { class: 'muted', text: 'Tell the customers:' }),
        el('button', {
          type: 'button',
          'data-action': 'download-csv',
          text: 'Download CSV',
          onclick: () => actions.onDownload(taskId, 'csv'),
        }),
        el('button', {
          type: 'button',
          'data-action': 'download-ics',
          text: 'Download calendar (.ics)',
          onclick: () => actions.onDownload(taskId, 'ics'),
        }),
        view.confirmRevert === taskId
          ? el(
              'span',
              { class: 'confirm' },
              'Put every booking back where it was, where still possible?',
              el('button', {
                type: 'button',
                class: 'danger',
                'data-action': 'confirm-revert',
                text: 'Yes, revert',
                onclick: () => ((view.confirmRevert = null), actions.onRevert(taskId)),
              }),
              el('button', {
                type: 'button',
                class: 'ghost',
                text: 'Keep',
                onclick: () => ((view.confirmRevert = null), rerender()),
              }),
            )
          : el('button', {
              type: 'button',
              'data-action': 'revert',
              text: 'Revert…',
              title: 'The room is back: undo this reflow',
              onclick: () => ((view.confirmRevert = taskId), rerender()),
            }),
      ),
    month
      ? el(
          'div',
          { class: 'calendar-wrap' },
          el(
            'div',
            { class: 'calendar-bar' },
            changed
              ? el(
                  'div',
                  { class: 'segmented', role: 'group', 'aria-label': 'Month view' },
                  toggle('before', 'Before'),
                  toggle('after', 'After'),
                )
              : el('span', { class: 'muted', text: 'Nothing moved by this task: the month as it is now' }),
            legend(view),
          ),
          renderCalendar({
            reflow,
            rooms: month.rooms.rooms,
            bookings: month.bookings,
            mode: changed ? view.mode : 'now',
          }),
        )
      : el('p', { class: 'muted', text: 'Loading the month…' }),
    reflow.unresolvedBookings.length > 0 &&
      el(
        'div',
        { class: 'unresolved' },
        el('h4', { text: `Could not move (${reflow.unresolvedBookings.length})` }),
        el(
          'ul',
          {},
          reflow.unresolvedBookings.map((u) =>
            el(
              'li',
              {},
              el('strong', { text: `${u.bookingId} · ${u.title}` }),
              el('span', { class: 'code', text: u.code }),
              el('p', { text: u.reason }),
            ),
          ),
        ),
      ),
    reflow.moves.length > 0 &&
      el(
        'details',
        { class: 'moves' },
        el('summary', { text: `All ${reflow.moves.length} moves` }),
        el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['Booking', 'From', 'To', 'Shift'].map((h) => el('th', { text: h })),
            ),
          ),
          el(
            'tbody',
            {},
            reflow.moves.map((m) =>
              el(
                'tr',
                {},
                el('td', { text: `${m.bookingId} · ${m.title}` }),
                el('td', { text: `${m.fromRoom} ${localDayLabel(m.fromStart)} ${localHm(m.fromStart)}` }),
                el('td', { text: `${m.toRoom} ${localDayLabel(m.toStart)} ${localHm(m.toStart)}` }),
                el('td', { text: m.shiftMinutes ? `${m.shiftMinutes > 0 ? '+' : ''}${m.shiftMinutes} min` : '—' }),
              ),
            ),
          ),
        ),
      ),
  );
}

function legend(view) {
  const item = (cls, text) => el('span', { class: 'legend-item' }, el('span', { class: `swatch ${cls}` }), text);
  return el(
    'div',
    { class: 'legend' },
    item('b-moved', view.mode === 'before' ? 'will move' : 'moved here'),
    item('b-unresolved', 'needs rebooking'),
    item('b-plain', 'other booking'),
    item('offline', 'offline'),
  );
}
