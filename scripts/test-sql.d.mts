// Types of test-sql.mjs, for the TypeScript tests that import it.
export interface TestSql {
  all<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T | undefined>;
  /** The first column of the first row. */
  value<T = unknown>(text: string, ...params: unknown[]): Promise<T | undefined>;
  /** Rows changed. */
  run(text: string, ...params: unknown[]): Promise<number>;
  exec(text: string): Promise<void>;
}
export function testSql(store: { dialect: 'sqlite' | 'postgres' }): Promise<TestSql>;
