// The server as its own process, started the way a person starts it, for the tests that kill it
// and for the load tools (bench:tasks, soak) that must not share its event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { builtEntry } from '../../../scripts/test-build.mjs';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUTPUT_TAIL_CHARS = 64 * 1024;

export interface ServerProcess {
  child: ChildProcess;
  mcpUrl: string;
  /** Resolves with the signal (or exit code) the process ended with. */
  exited: Promise<string>;
  /** True once the process has ended, by our hand or its own. */
  readonly dead: boolean;
  /** SIGKILLs the whole process group (npm, the shell, node and its worker threads) and waits. */
  kill(): Promise<string>;
  /** SIGTERM, then waits up to `timeoutMs` for a clean exit. */
  terminate(timeoutMs: number): Promise<string>;
  /** SIGSTOP to the server process: a stall (a GC pause, a frozen VM) until `thaw`. */
  freeze(): void;
  /** SIGCONT: a frozen server goes on where it stopped. */
  thaw(): void;
  /** The pid of the server itself (from its listening line): with `direct`, the child's own pid. */
  readonly pid: number;
  /** The last 64–128 KB of stdout and stderr, for a failure message. */
  output(): string;
}

/** The process ended before it was listening (with the apply fault armed, a leftover task can do that). */
export class ServerExitedEarly extends Error {
  constructor(
    readonly how: string,
    output: string,
  ) {
    super(`server exited (${how}) before listening:\n${output.slice(-3000)}`);
  }
}

/**
 * Starts the server the way a person does: `npm start` (or, with `direct`, the same entry through
 * node --import tsx, which skips npm's own start-up cost; under `npm test`, the run's bundle, see
 * scripts/test-build.mjs) on `databasePath` (a SQLite file, or a PostgreSQL database's URL), on a
 * free port. `under` runs the direct command under another (strace).
 */
export async function startServerProcess(
  databasePath: string,
  env: Record<string, string> = {},
  direct = false,
  under: readonly string[] = [],
): Promise<ServerProcess> {
  // Under `npm test`, the bundle built once for the run (the same sources, without tsx's start-up).
  const built = builtEntry('server');
  const entry = built ?? [process.execPath, '--import', 'tsx', 'apps/server/src/server.ts'];
  const [command, ...args] = built || direct || under.length > 0 ? [...under, ...entry] : ['npm', 'start', '--silent'];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      // A postgres:// URL selects PostgreSQL (a second process on it is another node), else a SQLite file.
      ...(/^postgres(ql)?:\/\//.test(databasePath) ? { DATABASE_URL: databasePath } : { DATABASE_PATH: databasePath }),
      WORKERS: '2',
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  // Only a tail is kept: a long run at LOG_LEVEL=info writes two lines per request.
  let out = '';
  let pid = 0;
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 2 * OUTPUT_TAIL_CHARS) out = out.slice(-OUTPUT_TAIL_CHARS);
  };
  let dead = false;
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => {
      dead = true;
      resolve(signal ?? `exit ${code}`);
    }),
  );
  const listening = new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      keep(chunk);
      // Scan only until the listening line, and only what came since (not the whole output each time).
      if (pid) return;
      seen = (seen + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
      const match = /"pid":(\d+).*"url":"(http:[^"]+\/mcp)".*"msg":"studio reflow server listening"/.exec(seen);
      if (match) {
        pid = Number(match[1]);
        resolve(match[2]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', keep);
    void exited.then((how) => reject(new ServerExitedEarly(how, out)));
  });
  // No fixed deadline (a busy machine can take any time to start a process): the wait lasts while
  // the process is alive and making progress, and fails only when it stops using CPU for a while.
  const startWatch = new AbortController();
  const deadline = stalled(child.pid!, startWatch.signal).then(
    (idleMs) => {
      throw new Error(
        `server used no CPU for ${idleMs / 1000} s and never said it was listening:\n${out.slice(-3000)}`,
      );
    },
    () => new Promise<never>(() => {}),
  );
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const mcpUrl = await Promise.race([listening, deadline])
    .catch(async (error) => {
      group('SIGKILL');
      await exited;
      throw error;
    })
    .finally(() => startWatch.abort());
  return {
    child,
    mcpUrl,
    exited,
    get dead() {
      return dead;
    },
    get pid() {
      return pid;
    },
    kill: async () => {
      group('SIGKILL');
      return exited;
    },
    terminate: async (timeoutMs) => {
      // SIGTERM to the server process itself (its pid is in every log line); npm, if it started it,
      // then exits with the server's own exit code.
      process.kill(pid, 'SIGTERM');
      const timer = new AbortController();
      const how = await Promise.race([
        exited,
        sleep(timeoutMs, 'timeout', { signal: timer.signal }).catch(() => 'cancelled'),
      ]);
      timer.abort();
      if (how === 'timeout') {
        group('SIGKILL');
        await exited;
      }
      return how;
    },
    freeze: () => process.kill(pid, 'SIGSTOP'),
    thaw: () => process.kill(pid, 'SIGCONT'),
    output: () => out,
  };
}

/** CPU time (user + system, in clock ticks) of every process in process group `group`. */
function groupCpuTicks(group: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command name (which may hold spaces): state ppid pgrp … utime(12) stime(13).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

/**
 * Resolves once the process group `group` (a detached child's pid) has used no CPU for `idleMs`;
 * rejects when `signal` aborts. Where /proc is missing, falls back to a fixed five minutes.
 */
async function stalled(group: number, signal: AbortSignal, idleMs = 60_000): Promise<number> {
  const step = 2_000;
  let last = -1;
  let idle = 0;
  for (;;) {
    await sleep(step, undefined, { signal });
    let ticks: number;
    try {
      ticks = groupCpuTicks(group);
    } catch {
      ticks = last; // no /proc: only the time passes
      idleMs = 300_000;
    }
    idle = ticks === last ? idle + step : 0;
    last = ticks;
    if (idle >= idleMs) return idleMs;
  }
}
