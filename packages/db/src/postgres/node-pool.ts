// The node's connection pool: node-postgres' Pool, whose "timeout exceeded when trying to connect"
// (every connection in use for connectionTimeoutMillis) is told apart from the database being away
// (PoolExhaustedError, counted), so a request and a log say which it was.
import pg from 'pg';
import { PoolExhaustedError } from '../store-errors.ts';

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

export class NodePool extends pg.Pool {
  /** How many waits for a connection ended with the pool exhausted. */
  exhausted = 0;

  constructor(private readonly config: pg.PoolConfig & { max: number; connectionTimeoutMillis: number }) {
    super(config);
  }

  #explain(error: Error): Error {
    // pg-pool says this only for a wait in its queue of a full pool; a slow new connection says otherwise.
    if (error.message !== 'timeout exceeded when trying to connect') return error;
    this.exhausted++;
    return new PoolExhaustedError(this.config.max, this.config.connectionTimeoutMillis, { cause: error });
  }

  // pg-pool's own query() connects through this method too (callback form).
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (!callback) return super.connect().catch((error: Error) => Promise.reject(this.#explain(error)));
    (super.connect as (cb: ConnectCallback) => void)((error, client, done) =>
      callback(error ? this.#explain(error) : error, client, done),
    );
  }
}
