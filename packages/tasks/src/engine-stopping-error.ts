/**
 * The engine is shutting down: it takes no new task, and a wait for one here ends. The task itself,
 * once created, is durable; the caller may ask again of another process, or once this one is back.
 */
export class EngineStoppingError extends Error {
  readonly code = 'RFL_SHUTTING_DOWN';
  constructor(message: string) {
    super(message);
    this.name = 'EngineStoppingError';
  }
}
