import type { TaskPollRow } from '@reflow/db';

/**
 * Characters of result text whose parsed objects are kept (the objects take a few times that in
 * the heap); beyond it the least recently read go first. The results polled are the ones that just
 * finished, so a small budget keeps nearly every hit.
 */
export const PARSED_RESULTS_BUDGET_CHARS = 8 * 1024 * 1024;

/**
 * Parsed results of completed tasks, so a client polling a finished task (or several clients
 * reading one) does not re-parse a result of tens of kilobytes on every request. Safe to share:
 * a completed task never changes, and the objects are frozen so no reader can change them for the next.
 */
class ParsedResults {
  readonly #byTask = new Map<string, { text: string; value: Record<string, unknown> }>();
  #chars = 0;

  constructor(private readonly budgetChars: number) {}

  of(row: TaskPollRow & { result: string }): Record<string, unknown> {
    const hit = this.#byTask.get(row.id);
    if (hit && hit.text === row.result) {
      // Most recently read last: Map keeps insertion order, so the first entry is the one to drop.
      this.#byTask.delete(row.id);
      this.#byTask.set(row.id, hit);
      return hit.value;
    }
    const value = deepFreeze(JSON.parse(row.result) as Record<string, unknown>);
    if (row.result.length <= this.budgetChars) {
      if (hit) this.#chars -= hit.text.length;
      this.#byTask.set(row.id, { text: row.result, value });
      this.#chars += row.result.length;
      for (const [id, entry] of this.#byTask) {
        if (this.#chars <= this.budgetChars) break;
        this.#byTask.delete(id);
        this.#chars -= entry.text.length;
      }
    }
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export const parsedResults = new ParsedResults(PARSED_RESULTS_BUDGET_CHARS);
