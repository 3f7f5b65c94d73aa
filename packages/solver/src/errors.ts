// Thrown between components when the caller's shouldStop hook asks the solve to end. A stable
// `code` lets callers tell a cancellation from a crash without matching on the message.
export class SolveCancelledError extends Error {
  readonly code = 'RFL_SOLVE_CANCELLED';

  constructor(componentsDone: number, componentsTotal: number) {
    super(`Solve cancelled after ${componentsDone} of ${componentsTotal} components`);
    this.name = 'SolveCancelledError';
  }
}
