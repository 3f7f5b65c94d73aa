// A task held for an operator's decision (APPROVAL=operator: an agent's reflow, or its revert):
// what it waits on, and Approve / Reject (a reason is required to reject) behind a confirm step.
import { dateTime, el } from './format.js';

/** What approving and rejecting do, said in the panel and in its confirm step. */
function consequences(task, summary) {
  if (task.kind === 'revert_reflow')
    return {
      explain:
        'Approving puts back what the reflow moved, each booking only if it is still where the reflow put it and its old slot is free; rejecting puts nothing back.',
      approve: `Put back what reflow ${task.input?.reflowTaskId ?? ''} moved?`,
      reject: 'Reject this revert? Nothing will be put back.',
    };
  return {
    explain:
      'Approving applies the plan below, each move re-checked against the bookings as they are then; rejecting applies nothing.',
    approve: `Move ${summary?.moved ?? 0} bookings and mark ${summary?.unresolved ?? 0} for rebooking?`,
    reject: 'Reject this plan? Nothing will be moved.',
  };
}

/**
 * `awaiting` is what the task waits on ({since, message}); `summary` the proposed plan's, for a
 * reflow. `view.decide` is the decision being confirmed ({taskId, decision}); `view.reason` the
 * reason typed so far.
 */
export function approvalPanel(task, awaiting, summary, view, rerender, actions) {
  const pending = view.decide?.taskId === task.taskId ? view.decide.decision : null;
  const reason = el('textarea', {
    id: 'decision-reason',
    rows: '2',
    maxlength: '1000',
    placeholder: 'Reason (required to reject; the client is told it)',
    'aria-label': 'Reason',
  });
  reason.value = view.reason ?? '';
  reason.addEventListener('input', () => (view.reason = reason.value));
  const problem = view.missingReason ? 'Give a reason to reject.' : '';
  const choose = (decision) => () => ((view.decide = { taskId: task.taskId, decision }), rerender());
  const said = consequences(task, summary);
  return el(
    'section',
    { class: 'approval', 'aria-label': 'Awaiting approval' },
    el('h3', { text: 'Awaiting your approval' }),
    el('p', { class: 'approval-message', text: awaiting.message }),
    el('p', {
      class: 'muted',
      text: `Asked by ${task.owner} · waiting since ${dateTime(awaiting.since)}. ${said.explain}`,
    }),
    reason,
    pending
      ? el(
          'div',
          { class: 'approval-actions' },
          el('span', {
            class: 'confirm',
            text: pending === 'approved' ? said.approve : said.reject,
          }),
          el('button', {
            type: 'button',
            class: pending === 'approved' ? 'primary' : 'danger',
            'data-action': pending === 'approved' ? 'confirm-approve' : 'confirm-reject',
            text: pending === 'approved' ? 'Yes, approve' : 'Yes, reject',
            onclick: () => {
              const why = (view.reason ?? '').trim();
              // The server would refuse it (400): say so here, keeping what was typed.
              view.missingReason = pending === 'rejected' && !why;
              if (view.missingReason) return rerender();
              view.decide = null;
              view.reason = '';
              (pending === 'approved' ? actions.onApprove : actions.onReject)(task.taskId, why);
            },
          }),
          problem && el('span', { class: 'approval-problem', role: 'alert', text: problem }),
          el('button', {
            type: 'button',
            class: 'ghost',
            text: 'Back',
            onclick: () => ((view.decide = null), (view.missingReason = false), rerender()),
          }),
        )
      : el(
          'div',
          { class: 'approval-actions' },
          el('button', {
            type: 'button',
            class: 'primary',
            'data-action': 'approve',
            text: 'Approve…',
            onclick: choose('approved'),
          }),
          el('button', {
            type: 'button',
            class: 'danger',
            'data-action': 'reject',
            text: 'Reject…',
            onclick: choose('rejected'),
          }),
        ),
  );
}

/** After the decision: who, when, why. */
export function decisionNote(decision) {
  return el(
    'p',
    { class: `decision decision-${decision.decision}`, 'data-decision': decision.decision },
    `${decision.decision === 'approved' ? 'Approved' : 'Rejected'} by ${decision.by} · ${dateTime(decision.at)}`,
    decision.reason ? ` — “${decision.reason}”` : '',
  );
}
