// The store's signals from every node: one dedicated connection LISTENing on the signal channel,
// watched and reconnected (with LISTEN again) when it drops. Signals sent while it was down are
// lost; the engine's periodic sweep is the backstop, so nothing special happens on reconnect.
import pg from 'pg';
import type { StoreSignal } from '../store.ts';
import { SIGNAL_CHANNEL } from './pg-db.ts';

const SIGNALS = new Set<string>(['created', 'cancelled', 'answered', 'released']);
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;
/** A LISTEN connection can die without a word (a failover, a dropped NAT entry): it is probed this often. */
const PROBE_MS = 10_000;

export class SignalListener {
  #client: pg.Client | undefined;
  #stopped = false;
  #retryMs = RECONNECT_MIN_MS;
  #timer: NodeJS.Timeout | undefined;
  readonly #probe: NodeJS.Timeout;
  /** Settles once the first LISTEN is in place (or failed): a signal sent after it is heard. */
  readonly ready: Promise<void>;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onSignal: (signal: StoreSignal, taskId: string) => void,
    private readonly onError: (error: Error) => void,
    /** A site was imported (by any node): `site:<generation>`. */
    private readonly onSite: () => void = () => {},
  ) {
    this.ready = this.#connect();
    this.#probe = setInterval(() => this.#checkAlive(), PROBE_MS).unref();
  }

  /** A probe that fails or hangs counts as a lost connection. */
  #checkAlive(): void {
    const client = this.#client;
    if (!client) return;
    const timeout = setTimeout(
      () => client.emit('error', new Error('The LISTEN connection stopped answering')),
      PROBE_MS / 2,
    );
    client
      .query('SELECT 1')
      .catch((error: Error) => client.emit('error', error))
      .finally(() => clearTimeout(timeout));
  }

  /** Whether stop() was called (read after an await: it may have changed meanwhile). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Whether the LISTEN connection is up (for tests and health). */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client(this.config);
    // Once per client: a dropped client can still emit `error` (or `end`) after its reconnect timer
    // fired, and a second reconnect would leave two LISTEN connections and every signal heard twice.
    let gone = false;
    const lost = (error?: Error) => {
      if (error) this.onError(error);
      if (gone) return;
      gone = true;
      if (this.#client === client) this.#client = undefined;
      client.removeAllListeners('end');
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on('error', (error) => lost(error));
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel !== SIGNAL_CHANNEL || !message.payload) return;
      const split = message.payload.indexOf(':');
      const signal = message.payload.slice(0, split);
      if (signal === 'site') this.onSite();
      else if (split > 0 && SIGNALS.has(signal)) this.onSignal(signal as StoreSignal, message.payload.slice(split + 1));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.#client = client;
      this.#retryMs = RECONNECT_MIN_MS;
    } catch (error) {
      lost(error as Error);
    }
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#timer) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#connect();
    }, delay);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#probe);
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
