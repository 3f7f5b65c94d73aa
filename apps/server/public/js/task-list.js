// The task list: counts per status (also the status filter), rows, and "load older".
import { ago, awaitingBadge, duration, el, STATUS_LABEL, statusBadge, shortId } from './format.js';

const ORDER = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** `selected` is a status, '' for all, or 'awaiting' for reflows waiting for an operator's decision. */
export function renderCounts(container, counts, selected, onSelect, awaiting = 0) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const chip = (status, label, n) =>
    el(
      'button',
      {
        type: 'button',
        class: `chip${selected === status ? ' active' : ''}${status ? ` s-${status}` : ''}`,
        'data-count': status || 'all',
        onclick: () => onSelect(status),
      },
      el('span', { class: 'chip-label', text: label }),
      el('span', { class: 'chip-n', text: String(n) }),
    );
  container.replaceChildren(
    chip('', 'All', total),
    chip('awaiting', 'Awaiting approval', awaiting),
    ...ORDER.map((s) => chip(s, STATUS_LABEL[s], counts[s] ?? 0)),
  );
}

function describe(task) {
  if (task.kind === 'reflow_month' && task.input) {
    const i = task.input;
    return `Reflow ${i.month}: ${i.offlineRooms.join(', ')} offline ${i.from.slice(8)}–${i.to.slice(8)}${i.dryRun ? ' (dry run)' : ''}`;
  }
  return task.kind;
}

export function renderRows(tbody, tasks, { selectedId, onOpen, onCancel }) {
  const now = Date.now();
  tbody.replaceChildren(
    ...tasks.map((task) => {
      const took = task.finishedAt
        ? Date.parse(task.finishedAt) - Date.parse(task.createdAt)
        : task.status === 'working'
          ? now - Date.parse(task.createdAt)
          : null;
      const canCancel = task.status === 'working' || task.status === 'input_required';
      return el(
        'tr',
        {
          'data-task-id': task.taskId,
          class: task.taskId === selectedId ? 'selected' : undefined,
          tabindex: '0',
          onclick: () => onOpen(task.taskId),
          onkeydown: (e) => e.key === 'Enter' && onOpen(task.taskId),
        },
        el('td', {}, task.awaitingApproval ? awaitingBadge() : statusBadge(task.status)),
        el(
          'td',
          { class: 'what' },
          el('div', { class: 'title', text: describe(task) }),
          el('div', { class: 'message', text: task.statusMessage ?? '' }),
          el('div', {
            class: 'meta',
            text: `${shortId(task.taskId)} · ${task.owner}${task.attempt > 1 ? ` · attempt ${task.attempt}/${task.maxAttempts}` : ''}`,
          }),
        ),
        el('td', { class: 'when', title: task.createdAt, text: ago(task.createdAt, now) }),
        el('td', { class: 'took', text: took === null ? '—' : duration(took) }),
        el(
          'td',
          { class: 'actions' },
          canCancel &&
            el('button', {
              type: 'button',
              class: 'danger small',
              'data-action': 'cancel',
              text: 'Cancel',
              onclick: (e) => {
                e.stopPropagation();
                onCancel(task.taskId);
              },
            }),
        ),
      );
    }),
  );
}
