// The operator console: state, live polling at the server's interval, and routing by #task=ID.
import { api, AuthRequiredError, token } from './api.js';
import { renderCounts, renderRows } from './task-list.js';
import { renderDetail, renderNoTaskChosen } from './task-detail.js';
import { setUpReflowForm } from './reflow-form.js';
import { renderClusterLine } from './cluster-line.js';

const $ = (id) => document.getElementById(id);
/** @type {{ status: string, kind: string, since: string, tasks: any[], cursor: string | null | undefined, older: any[], pollMs: number, selected: string | null, detailEpoch: number, detail: unknown, monthCache: Map<string, any>, timer: number | ReturnType<typeof setTimeout>, authBlocked: boolean }} */
const state = {
  status: '',
  /** 'operator' while the "Awaiting approval" filter is on. */
  awaiting: '',
  kind: '',
  since: '',
  tasks: [],
  cursor: null,
  older: [],
  pollMs: 1000,
  selected: null,
  /** Bumped whenever an answer in flight for the detail stops being the one to show. */
  detailEpoch: 0,
  detail: null,
  monthCache: new Map(),
  timer: 0,
  authBlocked: false,
};

function showError(message) {
  $('error-banner').textContent = message;
  $('error-banner').classList.toggle('hidden', !message);
}

function setLive(ok, text) {
  $('live').classList.toggle('off', !ok);
  $('live-text').textContent = text;
}

function handleFailure(error) {
  if (error instanceof AuthRequiredError) {
    state.authBlocked = true;
    $('auth-banner').classList.remove('hidden');
    setLive(false, 'Token needed');
    $('token-input').focus();
    return;
  }
  showError(error.message);
  setLive(false, 'Server unreachable — retrying');
}

function filters() {
  return {
    status: state.status,
    awaiting: state.awaiting,
    kind: state.kind,
    since: state.since ? new Date(Date.now() - Number(state.since)).toISOString() : undefined,
    limit: 50,
  };
}

async function refreshList() {
  const [page, cluster] = await Promise.all([api.tasks(filters()), api.nodes()]);
  renderClusterLine($('cluster-line'), cluster);
  state.tasks = page.tasks;
  if (!state.older.length) state.cursor = page.nextCursor;
  state.pollMs = page.pollIntervalMs;
  renderCounts(
    $('counts'),
    page.counts,
    state.awaiting ? 'awaiting' : state.status,
    (chosen) => {
      state.awaiting = chosen === 'awaiting' ? 'operator' : '';
      state.status = chosen === 'awaiting' ? '' : chosen;
      state.older = [];
      void tick();
    },
    page.awaitingApproval,
  );
  const seen = new Set(state.tasks.map((t) => t.taskId));
  const all = [...state.tasks, ...state.older.filter((t) => !seen.has(t.taskId))];
  renderRows($('task-rows'), all, { selectedId: state.selected, onOpen: open, onCancel: cancel });
  $('tasks-empty').classList.toggle('hidden', all.length > 0);
  $('load-more').classList.toggle('hidden', !state.cursor);
}

/**
 * Ticks overlap (a hash change starts one while another waits on the server), so an answer is
 * used only if nothing moved on meanwhile: another task opened, or a revert or applied plan
 * made the cached month stale. Without this, a late answer repaints the task just left, or
 * caches that month's bookings from before the revert.
 */
const detailIsCurrent = (epoch) => epoch === state.detailEpoch;
function moveOn() {
  state.detailEpoch += 1;
  state.monthCache.clear();
}

async function refreshDetail() {
  if (!state.selected) return;
  const epoch = state.detailEpoch;
  const detail = await api.task(state.selected);
  if (!detailIsCurrent(epoch)) return;
  let month;
  if (detail.reflow) {
    const key = `${detail.reflow.month}|${detail.task.taskId}|${detail.task.status}`; // bookings change only when a task ends
    if (!state.monthCache.has(key)) {
      const [rooms, bookings] = await Promise.all([api.rooms(), api.bookings(detail.reflow.month)]);
      if (!detailIsCurrent(epoch)) return;
      state.monthCache.clear();
      state.monthCache.set(key, { rooms, bookings: bookings.bookings });
    }
    month = state.monthCache.get(key);
    $('site-name').textContent = month.rooms.site
      ? `${month.rooms.site.name} · ${month.rooms.site.timezone}`
      : 'Operator console';
  }
  renderDetail($('detail'), detail, month, {
    onCancel: cancel,
    onApprove: approve,
    onReject: reject,
    onDownload: downloadChanges,
    onRevert: revert,
    onApplyPlan: applyPlan,
  });
}

/** One round: list and open task, then wait the server's poll interval. Never rejects: it shows its own failures. */
async function tick() {
  clearTimeout(state.timer);
  if (state.authBlocked || document.hidden) return; // a hidden tab stops asking; visibilitychange resumes it
  try {
    await refreshList();
    await refreshDetail();
    showError('');
    $('auth-banner').classList.add('hidden');
    setLive(
      true,
      `Live · every ${state.pollMs >= 1000 ? `${(state.pollMs / 1000).toFixed(state.pollMs % 1000 ? 1 : 0)} s` : `${state.pollMs} ms`}`,
    );
  } catch (error) {
    if (error?.code === 'RFL_UNKNOWN_TASK') {
      state.selected = null;
      location.hash = '';
      showError(error.message);
    } else handleFailure(error);
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- handleFailure may have set it; TypeScript keeps the check at the top narrowed across the awaits
  if (!state.authBlocked) state.timer = setTimeout(() => void tick(), Math.max(250, state.pollMs));
}

function open(taskId) {
  if (state.selected === taskId) return;
  location.hash = `task=${taskId}`;
}

async function cancel(taskId) {
  try {
    await api.cancel(taskId);
  } catch (error) {
    if (error?.code !== 'RFL_TASK_FINISHED') return handleFailure(error);
    showError(error.message);
  }
  void tick();
}

/** An operator's decision on a reflow awaiting approval; a refusal (already decided, no reason) is shown as it is. */
async function decide(call, taskId, reason) {
  try {
    await call(taskId, reason);
    showError('');
  } catch (error) {
    if (!error?.code) return handleFailure(error);
    showError(`${error.message} (${error.code})`);
  }
  void tick();
}
const approve = (taskId, reason) => decide(api.approve, taskId, reason);
const reject = (taskId, reason) => decide(api.reject, taskId, reason);

/** Starts the revert and follows it; the month is read again afterwards (its bookings move back). */
async function revert(taskId) {
  try {
    const task = await api.revert(taskId);
    moveOn();
    location.hash = `task=${task.taskId}`;
  } catch (error) {
    if (!error?.code) return handleFailure(error);
    showError(`${error.message} (${error.code})`);
  }
}

/** A completed dry run's plan, applied as previewed: follow the new task. */
async function applyPlan(taskId) {
  try {
    const task = await api.applyPlan(taskId);
    moveOn();
    location.hash = `task=${task.taskId}`;
  } catch (error) {
    if (!error?.code) return handleFailure(error);
    showError(`${error.message} (${error.code})`);
  }
}

async function downloadChanges(taskId, format) {
  try {
    await api.changes(taskId, format);
  } catch (error) {
    if (!error?.code) return handleFailure(error);
    showError(`${error.message} (${error.code})`);
  }
}

function route() {
  const match = /^#task=(tsk_[0-9a-zA-Z]+)$/.exec(location.hash);
  const selected = match ? match[1] : null;
  if (selected !== state.selected) state.detailEpoch += 1;
  state.selected = selected;
  if (!state.selected) renderNoTaskChosen($('detail'));
  void tick();
}

$('token-input').value = token.get();
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  token.set($('token-input').value.trim());
  state.authBlocked = false;
  void tick();
});
$('token-clear').addEventListener('click', () => {
  token.set('');
  $('token-input').value = '';
  state.authBlocked = false;
  void tick();
});
$('filter-kind').addEventListener('change', (e) => {
  state.kind = e.target.value.trim();
  state.older = [];
  void tick();
});
$('filter-since').addEventListener('change', (e) => {
  state.since = e.target.value;
  state.older = [];
  void tick();
});
async function loadMore() {
  try {
    const page = await api.tasks({ ...filters(), cursor: state.cursor });
    state.older.push(...page.tasks);
    state.cursor = page.nextCursor;
    void tick();
  } catch (error) {
    handleFailure(error);
  }
}
$('load-more').addEventListener('click', () => void loadMore());
setUpReflowForm({ onStarted: (taskId) => (location.hash = `task=${taskId}`), onFailure: handleFailure });
window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) void tick();
});
route();
