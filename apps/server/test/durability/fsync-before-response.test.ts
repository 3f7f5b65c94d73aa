// "Accepted = durable" at the level of the system calls, on SQLite: the server runs under strace,
// which records every write to the WAL, every fsync/fdatasync and every write to a socket. For each
// task id a client received, the WAL write that first holds the id must be followed by an fsync or
// fdatasync of the WAL that started after it and returned before the response carrying the id was
// written. The server commits creates at synchronous=NORMAL and flushes the WAL on libuv's thread
// pool (packages/db/src/wal-flush.ts); this is the test that the flush is real and comes first.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpBody, mcpHeaders, parseMcpBody } from '../../harness/mcp-wire.ts';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { sqliteOnlyFile } from '../../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile("follows the fsync of SQLite's WAL file with strace");

interface Call {
  pid: string;
  name: string;
  args: string;
  start: number;
  end: number;
}

/**
 * strace -f -ttt -T -y output as calls with start and end times (a call another thread interrupted
 * comes in two lines). strace pads the pid to five columns (`%-5d `): a pid under 10000 is followed
 * by more than one space.
 */
function parseTrace(text: string): Call[] {
  const calls: Call[] = [];
  const open = new Map<string, Omit<Call, 'end'>>();
  for (const line of text.split('\n')) {
    const resumed = /^(\d+) +([\d.]+) <\.\.\. (\w+) resumed>/.exec(line);
    if (resumed) {
      const started = open.get(resumed[1]);
      open.delete(resumed[1]);
      if (started) calls.push({ ...started, end: Number(resumed[2]) });
      continue;
    }
    const call = /^(\d+) +([\d.]+) (\w+)\((.*)$/.exec(line);
    if (!call) continue;
    const [, pid, at, name, rest] = call;
    if (rest.endsWith('<unfinished ...>')) {
      open.set(pid, { pid, name, args: rest, start: Number(at) });
      continue;
    }
    const took = /<([\d.]+)>$/.exec(rest);
    calls.push({ pid, name, args: rest, start: Number(at), end: Number(at) + Number(took?.[1] ?? 0) });
  }
  return calls;
}

test('every task id a client received was in a WAL write that an fsync of the WAL finished before the answer left', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-fsync-'));
  const trace = join(dir, 'server.trace');
  let server: ServerProcess | undefined;
  t.after(async () => {
    if (server && !server.dead) await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  server = await startServerProcess(
    join(dir, 'reflow.db'),
    // No workers: the server only accepts, so the trace holds the creates and little else.
    { WORKERS: '0', SQLITE_SYNCHRONOUS: 'FULL' },
    true,
    [
      'strace',
      '-f',
      '-qq',
      '-ttt',
      '-T',
      '-y',
      '-s',
      '65536',
      '-o',
      trace,
      '-e',
      'trace=pwrite64,fsync,fdatasync,write,writev',
    ],
  );
  const create = async (from: number) => {
    const day = `2026-09-${String(from).padStart(2, '0')}`;
    const response = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders('tools/call', 'reflow_month'),
      body: mcpBody('tools/call', {
        name: 'reflow_month',
        arguments: { month: '2026-09', offline_rooms: ['studio-b'], from: day, to: day, dry_run: true },
      }),
    });
    const taskId: unknown = parseMcpBody(await response.text())?.result?.taskId;
    assert.equal(typeof taskId, 'string', `a CreateTaskResult (HTTP ${response.status})`);
    return taskId as string;
  };
  // One at a time, then twelve at once (group commits of several creates).
  const ids = [await create(1), await create(2), await create(3)];
  ids.push(...(await Promise.all(Array.from({ length: 12 }, (_, i) => create(4 + i)))));
  // SIGTERM: the server stops, and strace, its tracee gone, writes out its whole trace.
  assert.equal(await server.terminate(10_000), 'exit 0');

  const calls = parseTrace(readFileSync(trace, 'utf8'));
  const onWal = (c: Call) => /^\d+<[^>]*\.db-wal>/.test(c.args);
  const walWrites = calls.filter((c) => c.name === 'pwrite64' && onWal(c));
  const walSyncs = calls.filter((c) => (c.name === 'fsync' || c.name === 'fdatasync') && onWal(c));
  const socketWrites = calls.filter(
    (c) => (c.name === 'write' || c.name === 'writev') && /^\d+<(socket:|TCP)/.test(c.args),
  );
  assert.ok(
    walWrites.length > 0 && walSyncs.length > 0 && socketWrites.length > 0,
    `the trace holds WAL writes (${walWrites.length}), WAL syncs (${walSyncs.length}) and socket writes (${socketWrites.length}) of ${calls.length} calls`,
  );
  for (const id of ids) {
    const written = walWrites.find((c) => c.args.includes(id));
    assert.ok(written, `${id} was written to the WAL`);
    // strace escapes the quotes: \"taskId\":\"tsk_…\"
    const answered = socketWrites.find((c) => c.args.includes(`taskId\\":\\"${id}`));
    assert.ok(answered, `the answer carrying ${id} was written to a socket`);
    const synced = walSyncs.find((c) => c.start >= written.end && c.end <= answered.start);
    assert.ok(
      synced,
      `${id}: no fsync of the WAL between its write (${written.end}) and its answer (${answered.start})`,
    );
  }
});
