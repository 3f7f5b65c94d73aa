// Types of free-port.mjs, for the TypeScript tests that import it.
/** A free port of 127.0.0.1 below the kernel's ephemeral range (no self-connect on restart). */
export function freePort(): Promise<number>;
