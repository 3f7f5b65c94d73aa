import type { EventEmitter } from 'node:events';
import { StaleAttemptError, storeTrouble, type Store, type TaskRow } from '@reflow/db';
import type { Logger } from './logger.ts';
import { resumedInput } from './input-gate.ts';
import { ProgressThrottle } from './progress-throttle.ts';
import { OUTAGE_WAIT_MS, waitForStore } from './store-outage.ts';
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
  /** How long the attempt waits for a store that is away before it gives up as a crash would (default OUTAGE_WAIT_MS). */
  outageWaitMs?: number;
  /** Its 'check' event asks the attempt to renew its lease now, not at its next heartbeat. */
  leaseChecks?: EventEmitter;
}

/** How often one write may meet its own lapsed lease, resume it and try again (a node stalled repeatedly). */
const LAPSES_PER_WRITE = 3;

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
  /** Whether a store call of this attempt met the store away: a lease lost then was lost to the outage, not to the task. */
  const outage = { seen: false };
  const noteTrouble = (error: unknown) => {
    if (storeTrouble(error)) outage.seen = true;
  };
  /**
   * The store refused a write of this attempt: its lease lapsed (a stall, an outage) or the task is no
   * longer its own. Asks for the lease again, which the store grants only while the attempt owns the
   * task and no overlapping task was claimed meanwhile; refused, the attempt stops.
   */
  let regaining: Promise<boolean> | undefined;
  const regain = (): Promise<boolean> =>
    (regaining ??= store.tasks
      .resumeLease(fence, deps.leaseMs)
      .then(
        (resumed) => {
          if (resumed) log.warn('the lease had lapsed; resumed it (no overlapping task was claimed meanwhile)');
          else lost();
          return resumed;
        },
        (error: unknown) => {
          noteTrouble(error);
          log.warn({ err: error }, 'resuming the lease failed; trying again at the next heartbeat');
          return false;
        },
      )
      .finally(() => (regaining = undefined)));
  // One renewal at a time: one still waiting (a slow or unreachable database) is not stacked upon.
  let renewing = false;
  const renew = () => {
    if (renewing || abort.signal.aborted) return;
    renewing = true;
    store.tasks
      .renewLease(fence, deps.leaseMs)
      .then(
        (renewed) => renewed || regain(),
        (error: unknown) => {
          noteTrouble(error);
          log.warn({ err: error }, 'lease renewal failed; retrying at the next heartbeat');
        },
      )
      .finally(() => (renewing = false));
  };
  const heartbeat = setInterval(renew, deps.heartbeatMs);
  heartbeat.unref();
  deps.leaseChecks?.on('check', renew);
  const outageDeadline = () => Date.now() + (deps.outageWaitMs ?? OUTAGE_WAIT_MS);
  /**
   * Runs a write of the attempt's outcome, outlasting an outage: when the store is away it waits for
   * it (bounded) and tries again; when the write met its own lapsed lease (after the wait, or a
   * stall), it resumes the lease first. Any other error, or a refused resume, is thrown.
   */
  const outlastOutage = async <T>(write: () => Promise<T>): Promise<T> => {
    const deadline = outageDeadline();
    for (let lapses = 0; ;) {
      try {
        return await write();
      } catch (error) {
        const trouble = storeTrouble(error);
        const lapsed = error instanceof StaleAttemptError;
        if ((!trouble && !lapsed) || abort.signal.aborted) throw error;
        if (trouble) {
          // A busy store answers its ping while every write still times out: the deadline is judged
          // here too, not only when the ping fails.
          if (Date.now() > deadline) throw error;
          outage.seen = true;
          log.warn({ err: error, trouble }, 'the store is away; the attempt waits for it');
          if (!(await waitForStore(store, deadline, abort.signal))) throw error;
        } else if (++lapses > LAPSES_PER_WRITE) throw error;
        if (!(await resumeOrTrouble())) throw new StaleAttemptError(fence);
      }
    }
  };
  /** resumeLease, where the store being away again counts as "resumed" (the write's next try meets it and waits). */
  const resumeOrTrouble = async (): Promise<boolean> => {
    try {
      return await store.tasks.resumeLease(fence, deps.leaseMs);
    } catch (error) {
      if (!storeTrouble(error)) throw error;
      return true;
    }
  };
  // Progress writes one after the other, in the order reported; the terminal write waits for them.
  let writes = Promise.resolve();
  const progress = new ProgressThrottle((message, data) => {
    writes = writes
      .then(async () => {
        if (await store.tasks.progress(fence, message, data)) deps.onProgress(row.id, message);
        // Refused: the lease lapsed (a stall, an outage) or the task was cancelled, expired or taken
        // over. Resume or stop now rather than at the next heartbeat.
        else await regain();
      })
      .catch((error: unknown) => {
        noteTrouble(error);
        log.warn({ err: error }, 'progress write failed');
      });
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
      await outlastOutage(() =>
        store.inputs.park(fence, {
          requests: outcome.requests,
          state: outcome.state,
          message: outcome.message,
          ...(outcome.awaiting ? { awaiting: outcome.awaiting } : {}),
        }),
      );
      deps.onProgress(row.id, outcome.message);
      log.info('task parked waiting for input');
      return 'parked';
    }
    await outlastOutage(() =>
      store.transaction(async (tx) => {
        // First the scope and the fence (lease included): from here to COMMIT no overlapping task
        // can be claimed or applied. The fence is judged again after the work is written, at the
        // moment the transaction commits: an apply that ran past the TTL rolls back with it.
        await tx.tasks.holdScope(fence);
        if (outcome.status === 'completed') {
          const { result, message } = 'commit' in outcome ? await outcome.commit(tx) : outcome;
          await tx.tasks.finish(fence, { status: 'completed', result: JSON.stringify(result), message });
        } else {
          await tx.tasks.finish(fence, outcome);
        }
      }),
    );
    log.info({ status: outcome.status }, 'task attempt finished');
    return 'finished';
  } catch (error) {
    if (error instanceof StaleAttemptError || abort.signal.aborted) {
      // Cancelled, superseded, or shutting down: whatever this attempt computed is discarded. A clean
      // shutdown does not count against the task's attempts; it did not fail.
      const reason: unknown = abort.signal.reason;
      const shutdown = reason instanceof AttemptInterrupted && reason.why === 'shutting down';
      // A lease lost to a database outage was not the task's doing either: no attempt spent.
      const refund = shutdown || outage.seen;
      const released = await store.tasks
        .release(
          fence,
          shutdown
            ? 'The server shut down before this attempt finished; the task waits for the next start'
            : outage.seen
              ? 'The database was unreachable and this attempt lost its lease meanwhile; the task waits for the next worker (no attempt spent)'
              : 'Attempt stopped; the task waits for the next worker',
          { refundAttempt: refund },
        )
        .catch((e: unknown) => {
          if (!storeTrouble(e)) throw e;
          return false;
        });
      log.info({ reason: String(reason ?? error) }, released ? 'task attempt released' : 'task attempt discarded');
      return released ? 'released' : 'lost';
    }
    if (storeTrouble(error)) {
      // The store was away (the handler's own reads, or for longer than the attempt waits): not the
      // task's failure. Given back without spending the attempt once the store answers; if it does
      // not within the wait, the claim stays until its lease lapses, as a crash would leave it.
      log.warn({ err: error }, 'the store was away; giving the task back without spending the attempt');
      if (await waitForStore(store, outageDeadline(), abort.signal)) {
        const released = await store.tasks
          .release(
            fence,
            'The database was unreachable during this attempt; the task waits for the next worker (no attempt spent)',
            { refundAttempt: true },
          )
          .catch(() => false);
        if (released) return 'released';
      }
      return 'lost';
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
    deps.leaseChecks?.off('check', renew);
    progress.stop();
  }
}
