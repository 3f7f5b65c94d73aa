// How `reflow call` and `reflow resume` end, so a script can tell the outcomes apart.
export const EXIT = {
  /** The task completed (or the tool answered directly) and the result was printed. */
  completed: 0,
  /** Nothing to wait for: bad arguments, the server refused the call, or could not be reached. */
  error: 1,
  /** The task failed; its error was printed. */
  failed: 2,
  /** The task was cancelled; a cancelled reflow moved nothing. */
  cancelled: 3,
  /** The server no longer knows the task: its time-to-live passed (or it was never this caller's). */
  expired: 4,
  /** The task (or the call) is waiting for input; what it asks was printed. */
  inputRequired: 5,
  /** The client stopped waiting (Ctrl-C, or the server stayed unreachable); `reflow resume` picks it up. */
  interrupted: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
