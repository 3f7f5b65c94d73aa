// Types of cuttable-proxy.mjs, for the TypeScript tests that import it.
export interface CuttableProxy {
  /** The upstream URL with the proxy's host and port in its place. */
  readonly url: string;
  /** Drops what clients send from now on (their statements wait), until cut. */
  stall(): void;
  /** Resets every open connection and refuses new ones until restore. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port (a no-op if it does). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export function cuttableProxy(upstreamUrl: string): Promise<CuttableProxy>;
