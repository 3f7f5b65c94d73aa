// Starts the SDK 1.x peer (sdk1-peer-server.ts) as its own process on a free port, for the bench's
// peer phase and its test; stop() kills it, and every task it held goes with it (memory only).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { childScript } from '../../../scripts/test-build.mjs';

const SERVER = fileURLToPath(new URL('./sdk1-peer-server.ts', import.meta.url));

export interface PeerServer {
  mcpUrl: string;
  stop(): Promise<void>;
}

/** `workMs`: how long each task's work takes, so a created task stays `working` while it is polled. */
export async function startSdk1Peer(options: { workMs: number }): Promise<PeerServer> {
  const child = spawn(process.execPath, [...childScript(SERVER), String(options.workMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const first = await Promise.race([
    once(child.stdout, 'data').then(([chunk]) => String(chunk).trim()),
    exited.then(([code, signal]) => {
      throw new Error(`the SDK 1.x peer exited (${signal ?? `exit ${code}`}) before listening`);
    }),
  ]);
  if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(first)) {
    child.kill('SIGKILL');
    throw new Error(`the SDK 1.x peer printed ${JSON.stringify(first)} instead of its URL`);
  }
  return {
    mcpUrl: first,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
