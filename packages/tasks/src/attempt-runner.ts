import { StaleAttemptError, type Store, type TaskRow } from '@reflow/db';
import type { Logger } from './logger.ts';
import { resumedInput } from './input-gate.ts';
import { ProgressThrottle } from './progress-throttle.ts';
import { PermanentTaskError, type TaskHandler, type TaskOutcome } from './types.ts';
import type { WorkerPool } from './worker-pool.ts';

export interface AttemptDeps {
  store: Store;
  pool: WorkerPool;
  instanceId: string;
  leaseMs: number;
  heartbeatMs: number;
  logger: Logger;
  onProgress: (taskId: string, message: string) => void;
  /** Least time between two progress writes of an attempt (default PROGRESS_INTERVAL_MS). */
  progressIntervalMs?: number;
}

/** A person reads progress a few times a second at most; each write is a synced transaction. */
export const PROGRESS_INTERVAL_MS = 250;

export type AttemptEnd = 'finished' | 'released' | 'lost' | 'parked';

/** Why an attempt was stopped from outside: the abort reason the engine gives its signal. */
export class AttemptInterrupted extends Error {
  constructor(readonly why: 'cancelled' | 'lease lost' | 'shutting down') {
    super(why);
    this.name = 'AttemptInterrupted';
  }
}

/**
 * Runs one claimed attempt: heartbeat, progress, then the terminal write fenced by the attempt.
 * A failure with attempts left goes back to the queue; without, the task fails with the reason.
 */
export async function runAttempt(
  row: TaskRow,
  handler: TaskHandler,
  abort: AbortController,
  deps: AttemptDeps,
): Promise<AttemptEnd> {
  const { store, logger } = deps;
  const fence = { taskId: row.id, attempt: row.attempt, claimedBy: deps.instanceId };
  const log = logger.child({ taskId: row.id, attempt: row.attempt, kind: row.kind });
  const lost = () => {
    if (!abort.signal.aborted) abort.abort(new AttemptInterrupted('lease lost'));
  };
  const heartbeat = setInterval(() => {
    store.tasks.renewLease(fence, deps.leaseMs).then(
      (renewed) => renewed || lost(),
      (error: unknown) => log.warn({ err: error }, 'lease renewal failed; retrying at the next heartbeat'),
    );
  }, deps.heartbeatMs);
  heartbeat.unref();
  // Progress writes one after the other, in the order reported; the terminal write waits for them.
  let writes = Promise.resolve();
  const progress = new ProgressThrottle((message, data) => {
    writes = writes
      .then(async () => {
        if (await store.tasks.progress(fence, message, data)) deps.onProgress(row.id, message);
        // Refused: the task was cancelled, expired or taken over (after a stall). Stop now rather than at the next heartbeat.
        else lost();
      })
      .catch((error: unknown) => log.warn({ err: error }, 'progress write failed'));
  }, deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  log.info('task attempt started');
  try {
    const resumed = await resumedInput(row, store);
    const outcome: TaskOutcome = await handler.run(row.input, {
      taskId: row.id,
      attempt: row.attempt,
      owner: row.owner,
      signal: abort.signal,
      pool: deps.pool,
      ...(resumed ? { resumed } : {}),
      progress: (message, data) => progress.report(message, data),
    });
    // The last progress before the outcome, so the history shows how far the work got.
    progress.flush();
    await writes;
    if (outcome.status === 'input_required') {
      await store.inputs.park(fence, {
        requests: outcome.requests,
        state: outcome.state,
        message: outcome.message,
        ...(outcome.awaiting ? { awaiting: outcome.awaiting } : {}),
      });
      deps.onProgress(row.id, outcome.message);
      log.info('task parked waiting for input');
      return 'parked';
    }
    await store.transaction(async (tx) => {
      // The fence is judged after the work is written, at the moment the transaction commits: an
      // apply that ran past the TTL rolls back with it.
      if (outcome.status === 'completed') {
        const { result, message } = 'commit' in outcome ? await outcome.commit(tx) : outcome;
        await tx.tasks.finish(fence, { status: 'completed', result: JSON.stringify(result), message });
      } else {
        await tx.tasks.finish(fence, outcome);
      }
    });
    log.info({ status: outcome.status }, 'task attempt finished');
    return 'finished';
  } catch (error) {
    if (error instanceof StaleAttemptError || abort.signal.aborted) {
      // Cancelled, superseded, or shutting down: whatever this attempt computed is discarded. A clean
      // shutdown does not count against the task's attempts; it did not fail.
      const reason: unknown = abort.signal.reason;
      const shutdown = reason instanceof AttemptInterrupted && reason.why === 'shutting down';
      const released = await store.tasks.release(
        fence,
        shutdown
          ? 'The server shut down before this attempt finished; the task waits for the next start'
          : 'Attempt stopped; the task waits for the next worker',
        { refundAttempt: shutdown },
      );
      log.info({ reason: String(reason ?? error) }, released ? 'task attempt released' : 'task attempt discarded');
      return released ? 'released' : 'lost';
    }
    const message = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof PermanentTaskError;
    if (!permanent && row.attempt < row.maxAttempts) {
      log.warn({ err: error }, 'task attempt failed; will retry');
      await store.tasks.release(fence, `Attempt ${row.attempt} failed (${message}); retrying`);
      return 'released';
    }
    log.error({ err: error }, 'task failed');
    const code = permanent ? error.code : -32603;
    const text = permanent ? message : `Failed after ${row.attempt} attempt(s): ${message}`;
    const data: unknown = permanent ? error.data : undefined;
    try {
      await store.transaction((tx) =>
        tx.tasks.finish(fence, {
          status: 'failed',
          error: { code, message: text, ...(data ? { data } : {}) },
          message: text,
        }),
      );
      return 'finished';
    } catch (e) {
      if (e instanceof StaleAttemptError) return 'lost';
      throw e;
    }
  } finally {
    clearInterval(heartbeat);
    progress.stop();
  }
}
