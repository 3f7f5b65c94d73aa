/** A request the caller can fix: the message names what was wrong. `code` is stable for programs. */
export class ReflowInputError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ReflowInputError';
  }
}
