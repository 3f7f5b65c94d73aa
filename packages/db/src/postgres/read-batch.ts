// Reads by key that reach the store together go to PostgreSQL as one statement (`= any($1)`), the
// way DataLoader batches: fifty pollers cost the node one round trip and PostgreSQL one index scan
// per batch instead of fifty of each. A read never joins a statement already sent, so it sees every
// write that committed before it was asked for (read-your-writes holds as for a read of its own).

interface Waiting<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

/** Bounds one statement's array (and so its parse and its result). */
const MAX_KEYS = 500;

export class ReadBatch<V> {
  /** Keys asked for since the last statement was sent, each with everyone waiting for it. */
  #pending = new Map<string, Waiting<V>[]>();
  /** A statement is scheduled or in flight: a read now waits for the next one. */
  #busy = false;
  #statements = 0;
  #reads = 0;

  /**
   * `readMany` reads the given keys in one statement and returns the rows found (any order);
   * `keyOf` says which key a row answers. A key with no row resolves to undefined.
   */
  constructor(
    private readonly readMany: (keys: string[]) => Promise<V[]>,
    private readonly keyOf: (row: V) => string,
  ) {}

  read(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#pending.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      if (this.#busy) return;
      this.#busy = true;
      // Every read that reaches the store in this turn of the event loop joins the first statement.
      setImmediate(() => void this.#drain());
    });
  }

  /** Statements sent, and reads answered by them (for the bench and tests: the mean batch size). */
  get stats(): { statements: number; reads: number } {
    return { statements: this.#statements, reads: this.#reads };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.size > 0) {
        const batch = [...this.#pending].slice(0, MAX_KEYS);
        for (const [key] of batch) this.#pending.delete(key);
        this.#statements++;
        this.#reads += batch.reduce((n, [, waiting]) => n + waiting.length, 0);
        let rows: V[];
        try {
          rows = await this.readMany(batch.map(([key]) => key));
        } catch (error) {
          for (const [, waiting] of batch) for (const w of waiting) w.reject(error);
          continue;
        }
        const found = new Map(rows.map((row) => [this.keyOf(row), row]));
        for (const [key, waiting] of batch) for (const w of waiting) w.resolve(found.get(key));
      }
    } finally {
      this.#busy = false;
    }
  }
}
