// One task: errors first, then its progress history, then (for a reflow) the month before and after.
import { approvalPanel, decisionNote } from './approval-panel.js';
import { awaitingBadge, clock, dateTime, duration, el, statusBadge } from './format.js';
import { reflowSection } from './reflow-section.js';

const view = { mode: 'after', confirmFor: null, decide: null, reason: '', missingReason: false, confirmRevert: null };

export function renderNoTaskChosen(container) {
  container.dataset.key = '';
  container.replaceChildren(
    el(
      'div',
      { class: 'placeholder' },
      el('h2', { text: 'Pick a task' }),
      el('p', { text: 'Its errors, progress history and — for a reflow — the month before and after appear here.' }),
    ),
  );
}

export function renderDetail(container, detail, month, actions) {
  const { task } = detail;
  const key = [
    task.taskId,
    task.status,
    task.lastUpdatedAt,
    detail.events.length,
    view.mode,
    view.confirmFor,
    view.decide?.taskId,
    view.decide?.decision,
    view.confirmRevert,
    Boolean(month),
  ].join('|');
  if (container.dataset.key === key) return; // nothing changed: keep scroll and focus
  container.dataset.key = key;
  const rerender = () => {
    container.dataset.key = '';
    renderDetail(container, detail, month, actions);
  };
  const sections = [
    header(task, actions, rerender),
    detail.error &&
      el(
        'div',
        { class: 'error-box', role: 'alert' },
        el('strong', { text: `Error ${detail.error.code}` }),
        el('p', { text: detail.error.message }),
      ),
    !task.awaitingApproval && el('p', { class: 'status-message', text: task.statusMessage ?? '' }),
    task.status === 'working' && !task.awaitingApproval && progressBar(detail.events),
    detail.approval && approvalPanel(task, detail.approval, detail.reflow?.summary, view, rerender, actions),
    detail.reflow?.operatorDecision && decisionNote(detail.reflow.operatorDecision),
    history(detail.events),
    detail.reflow && reflowSection(detail.reflow, month, view, rerender, task.taskId, actions),
    facts(detail),
  ];
  container.replaceChildren(...sections.filter(Boolean));
}

const HEADINGS = { reflow_month: 'Reflow a month', revert_reflow: 'Revert a reflow' };

function header(task, actions, rerender) {
  const working = task.status === 'working' || task.status === 'input_required';
  const confirm = view.confirmFor === task.taskId;
  return el(
    'div',
    { class: 'detail-head' },
    el(
      'div',
      {},
      el('h2', { text: HEADINGS[task.kind] ?? task.kind }),
      el('code', { class: 'task-id', text: task.taskId }),
    ),
    el(
      'div',
      { class: 'head-actions' },
      task.awaitingApproval ? awaitingBadge() : statusBadge(task.status),
      working &&
        !confirm &&
        el('button', {
          type: 'button',
          class: 'danger',
          'data-action': 'cancel-detail',
          text: 'Cancel task',
          onclick: () => ((view.confirmFor = task.taskId), rerender()),
        }),
      working &&
        confirm &&
        el(
          'span',
          { class: 'confirm' },
          'Discard its work?',
          el('button', {
            type: 'button',
            class: 'danger',
            'data-action': 'confirm-cancel',
            text: 'Yes, cancel',
            onclick: () => ((view.confirmFor = null), actions.onCancel(task.taskId)),
          }),
          el('button', {
            type: 'button',
            class: 'ghost',
            text: 'Keep running',
            onclick: () => ((view.confirmFor = null), rerender()),
          }),
        ),
    ),
  );
}

/** How far a running solve is, from the latest progress event that says (groups of bookings solved). */
function progressBar(events) {
  const last = [...events].reverse().find((e) => e.kind === 'progress' && e.data && e.data.componentsTotal > 0);
  if (!last) return null;
  const { componentsDone, componentsTotal } = last.data;
  return el('progress', {
    class: 'solve-progress',
    max: String(componentsTotal),
    value: String(componentsDone),
    'aria-label': `${componentsDone} of ${componentsTotal} groups solved`,
  });
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
          // The node that ran the attempt (its claimant), as /api/nodes names it.
          e.kind === 'claimed' &&
            typeof e.data?.by === 'string' &&
            el('span', { class: 'ev-node', 'data-node-id': e.data.by, text: `on ${e.data.by}` }),
        ),
      ),
    ),
  );
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
