import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { isMainThread, type MessagePort } from 'node:worker_threads';

/** The last message a worker posts on its progress port: everything before it has arrived. */
export const END_OF_MESSAGES = 'reflow:end-of-messages';

export interface WorkerContext {
  /** Posts a progress message back to the main thread. */
  report(message: unknown): void;
  /** True once the main thread asked this task to stop. */
  shouldStop(): boolean;
}

/** How much nicer a worker thread is than the process: solves yield the CPU to the thread that answers requests. */
export const WORKER_NICENESS = 10;

/**
 * Lowers this worker thread's CPU priority (Linux, where each thread has its own nice value; raising
 * it needs no privilege). The solves a server queued must not starve the event loop that accepts
 * and answers its requests: on two cores, two busy solver threads left it a third of the machine.
 * Elsewhere, or if refused, the thread keeps the normal priority.
 */
function yieldToRequests(): void {
  if (isMainThread || process.platform !== 'linux') return;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // Relative to what the thread inherited (19 is the lowest priority there is).
    setPriority(threadId, Math.min(19, getPriority(threadId) + WORKER_NICENESS));
  } catch {
    // No /proc, or a sandbox that refuses it: solve at normal priority.
  }
}

/**
 * Wraps a worker module's function so it speaks the pool's envelope (payload, progress port, stop
 * flag); called at the worker module's top level, it also lowers the thread's priority.
 */
export function workerTask<P, R>(fn: (payload: P, ctx: WorkerContext) => R | Promise<R>) {
  yieldToRequests();
  return async (envelope: { payload: P; port: MessagePort; stopFlag?: Int32Array }): Promise<R> => {
    const { payload, port, stopFlag } = envelope;
    try {
      return await fn(payload, {
        report: (message) => port.postMessage(message),
        shouldStop: () => (stopFlag ? Atomics.load(stopFlag, 0) === 1 : false),
      });
    } finally {
      port.postMessage(END_OF_MESSAGES);
      port.close();
    }
  };
}

/** A flag the main thread sets and a worker reads without a message round-trip. */
export function newStopFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

export function raiseStopFlag(flag: Int32Array): void {
  Atomics.store(flag, 0, 1);
}
