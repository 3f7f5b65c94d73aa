// One task: errors first, then its progress history, then (for a reflow) the month before and after.
import { renderCalendar } from './calendar.js';
import { clock, dateTime, duration, el, localDayLabel, localHm, statusBadge } from './format.js';

const view = { mode: 'after', confirmFor: null };

export function renderPlaceholder(container) {
  container.dataset.key = '';
  container.replaceChildren(
    el('div', { class: 'placeholder' }, el('h2', { text: 'Pick a task' }), el('p', { text: 'Its errors, progress history and — for a reflow — the month before and after appear here.' })),
  );
}

export function renderDetail(container, detail, month, actions) {
  const { task } = detail;
  const key = [task.taskId, task.status, task.lastUpdatedAt, detail.events.length, view.mode, view.confirmFor, Boolean(month)].join('|');
  if (container.dataset.key === key) return; // nothing changed: keep scroll and focus
  container.dataset.key = key;
  const rerender = () => {
    container.dataset.key = '';
    renderDetail(container, detail, month, actions);
  };
  const sections = [
    header(task, actions, rerender),
    detail.error && el('div', { class: 'error-box', role: 'alert' }, el('strong', { text: `Error ${detail.error.code}` }), el('p', { text: detail.error.message })),
    el('p', { class: 'status-message', text: task.statusMessage ?? '' }),
    history(detail.events),
    detail.reflow && reflowSection(detail.reflow, month, rerender),
    facts(detail),
  ];
  container.replaceChildren(...sections.filter(Boolean));
}

function header(task, actions, rerender) {
  const working = task.status === 'working' || task.status === 'input_required';
  const confirm = view.confirmFor === task.taskId;
  return el(
    'div',
    { class: 'detail-head' },
    el('div', {}, el('h2', { text: task.kind === 'reflow_month' ? 'Reflow a month' : task.kind }), el('code', { class: 'task-id', text: task.taskId })),
    el(
      'div',
      { class: 'head-actions' },
      statusBadge(task.status),
      working && !confirm && el('button', { type: 'button', class: 'danger', 'data-action': 'cancel-detail', text: 'Cancel task', onclick: () => ((view.confirmFor = task.taskId), rerender()) }),
      working &&
        confirm &&
        el(
          'span',
          { class: 'confirm' },
          'Discard its work?',
          el('button', { type: 'button', class: 'danger', 'data-action': 'confirm-cancel', text: 'Yes, cancel', onclick: () => ((view.confirmFor = null), actions.onCancel(task.taskId)) }),
          el('button', { type: 'button', class: 'ghost', text: 'Keep running', onclick: () => ((view.confirmFor = null), rerender()) }),
        ),
    ),
  );
}

function history(events) {
  const t0 = events.length ? Date.parse(events[0].at) : 0;
  return el(
    'section',
    { class: 'history' },
    el('h3', { text: `Progress history (${events.length})` }),
    el(
      'ol',
      { class: 'events' },
      [...events].reverse().map((e) =>
        el(
          'li',
          { class: `ev ev-${e.kind}` },
          el('span', { class: 'ev-time', title: e.at, text: `${clock(e.at)} · +${duration(Date.parse(e.at) - t0)}` }),
          el('span', { class: 'ev-kind', text: e.kind }),
          el('span', { class: 'ev-msg', text: e.message }),
          e.attempt > 0 && el('span', { class: 'ev-attempt', text: `attempt ${e.attempt}` }),
        ),
      ),
    ),
  );
}

function stat(label, value, hint) {
  return el('div', { class: 'stat' }, el('div', { class: 'stat-value', text: String(value) }), el('div', { class: 'stat-label', text: label }), hint && el('div', { class: 'stat-hint', text: hint }));
}

function reflowSection(reflow, month, rerender) {
  const s = reflow.summary;
  const changed = reflow.moves.length + reflow.unresolvedBookings.length > 0;
  const toggle = (mode, label) =>
    el('button', { type: 'button', class: `seg${view.mode === mode ? ' active' : ''}`, 'data-view': mode, 'aria-pressed': String(view.mode === mode), text: label, onclick: () => ((view.mode = mode), rerender()) });
  return el(
    'section',
    { class: 'reflow' },
    el('h3', { text: `${reflow.offlineRooms.join(', ')} offline ${localDayLabel(reflow.window.from)} – ${localDayLabel(reflow.window.to)}${reflow.dryRun ? ' · dry run' : ''}` }),
    s &&
      el(
        'div',
        { class: 'stats' },
        stat('moved', `${s.moved} / ${s.affected}`, s.optimal.moved ? 'proven most possible' : `at most ${s.movedBound}`),
        stat('need rebooking', s.unresolved),
        stat('total shift', `${s.totalShiftMinutes} min`, s.optimal.shift ? 'proven least' : 'best found'),
        stat('written', s.applied ? 'yes' : 'no (dry run)'),
      ),
    month
      ? el(
          'div',
          { class: 'calendar-wrap' },
          el(
            'div',
            { class: 'calendar-bar' },
            changed ? el('div', { class: 'segmented', role: 'group', 'aria-label': 'Month view' }, toggle('before', 'Before'), toggle('after', 'After')) : el('span', { class: 'muted', text: 'Nothing moved by this task: the month as it is now' }),
            legend(),
          ),
          renderCalendar({ reflow, rooms: month.rooms.rooms, bookings: month.bookings, mode: changed ? view.mode : 'now' }),
        )
      : el('p', { class: 'muted', text: 'Loading the month…' }),
    reflow.unresolvedBookings.length > 0 &&
      el(
        'div',
        { class: 'unresolved' },
        el('h4', { text: `Could not move (${reflow.unresolvedBookings.length})` }),
        el('ul', {}, reflow.unresolvedBookings.map((u) => el('li', {}, el('strong', { text: `${u.bookingId} · ${u.title}` }), el('span', { class: 'code', text: u.code }), el('p', { text: u.reason })))),
      ),
    reflow.moves.length > 0 &&
      el(
        'details',
        { class: 'moves' },
        el('summary', { text: `All ${reflow.moves.length} moves` }),
        el(
          'table',
          {},
          el('thead', {}, el('tr', {}, ['Booking', 'From', 'To', 'Shift'].map((h) => el('th', { text: h })))),
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

function legend() {
  const item = (cls, text) => el('span', { class: 'legend-item' }, el('span', { class: `swatch ${cls}` }), text);
  return el('div', { class: 'legend' }, item('b-moved', view.mode === 'before' ? 'will move' : 'moved here'), item('b-unresolved', 'needs rebooking'), item('b-plain', 'other booking'), item('offline', 'offline'));
}

function facts(detail) {
  const { task, timings } = detail;
  const row = (k, v) => [el('dt', { text: k }), el('dd', { text: v })];
  return el(
    'section',
    { class: 'facts' },
    el('h3', { text: 'Details' }),
    el(
      'dl',
      {},
      row('Owner', task.owner),
      row('Attempts', `${task.attempt} of ${task.maxAttempts}`),
      row('Created', dateTime(task.createdAt)),
      row('Started', dateTime(task.startedAt)),
      row('Finished', dateTime(task.finishedAt)),
      row('Waited in queue', duration(timings.queuedMs)),
      row('Ran', duration(timings.runMs)),
      row('Readable until', dateTime(task.expiresAt)),
    ),
    el('details', {}, el('summary', { text: 'Input' }), el('pre', { text: JSON.stringify(task.input, null, 2) })),
  );
}
