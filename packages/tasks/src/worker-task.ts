import type { MessagePort } from 'node:worker_threads';

/** The last message a worker posts on its progress port: everything before it has arrived. */
export const END_OF_MESSAGES = 'reflow:end-of-messages';

export interface WorkerContext {
  /** Posts a progress message back to the main thread. */
  report(message: unknown): void;
  /** True once the main thread asked this task to stop. */
  shouldStop(): boolean;
}

/** Wraps a worker module's function so it speaks the pool's envelope (payload, progress port, stop flag). */
export function workerTask<P, R>(fn: (payload: P, ctx: WorkerContext) => R | Promise<R>) {
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
