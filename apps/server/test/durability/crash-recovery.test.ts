// The promise under real faults: the server runs as a child process on its own database and is
// SIGKILLed, round after round, right after a CreateTaskResult, in the middle of a solve, or inside
// the apply transaction (through the documented test-only FAULT_KILL_IN_APPLY_AFTER_MOVES hook),
// then restarted. Afterwards every task id a client received answers tasks/get, every task is
// terminal, and the bookings are exactly the before-state plus the audited moves of completed tasks.
// On SQLite the restarted process reclaims the dead one's attempts at once (same host, its pid is
// gone); on PostgreSQL the restart is a new node that takes them over once the dead node's
// heartbeat has lapsed for a lease, so that run uses a short lease.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { importSite } from '@reflow/reflow';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { checkInvariants, readBookings } from '../helpers/booking-invariants.ts';
import { pollFor, seededRandom, ServerExitedEarly, startServerProcess, type ServerProcess } from './crash-harness.ts';
import { openTestStore, rpc } from '../helpers/test-server.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';
import { freshTestDatabase, onPostgres } from '../../../../scripts/test-store.mjs';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 30);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
/** Generous enough that most tasks outlive a few kills and complete; a task killed more often fails, as it should. */
const ENV = {
  MAX_ATTEMPTS: '4',
  // PostgreSQL: a dead node's attempts wait for its heartbeat to lapse for a lease; keep that short.
  ...(onPostgres() ? { LEASE_MS: '2000' } : {}),
};
const MODES = ['after-create', 'mid-solve', 'in-apply', 'random-delay'] as const;
type Mode = (typeof MODES)[number];
/** Where a kill must have landed in every run: each is asserted, and re-aimed at when missed. */
const KILL_POINTS = ['after-create', 'mid-solve', 'in-apply'] as const;
type KillPoint = (typeof KILL_POINTS)[number];
const MAX_RE_AIMS = 12;

test(
  `SIGKILL at the worst moments, ${ROUNDS} rounds: no task id lost, no booking lost, doubled or half moved`,
  { timeout: 1_500_000 }, // below the runner's 1800 s, so this test's t.after still kills its server
  async (t) => {
    const database = await freshTestDatabase();
    const databasePath = database.location;
    const random = seededRandom(SEED);
    // The test's own connection, like another process: it seeds, then only reads what the servers wrote.
    const store = await openTestStore(databasePath);
    await store.migrate();
    await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
    const sql = await testSql(store);
    const rooms = (await store.site.listRooms()).map((r) => r.id).sort();
    const before = await readBookings(sql);

    const received = new Set<string>();
    const counts = {
      rounds: 0,
      kills: 0,
      killedInApply: 0,
      killedMidSolve: 0,
      killedAfterCreate: 0,
      cancels: 0,
      restarts: 0,
      reAims: 0,
    };
    let server: ServerProcess | undefined;
    // Also on a timeout, when the finally below never runs: the server is in its own process group.
    t.after(async () => {
      if (server && !server.dead) await server.kill();
      await store.close().catch(() => {});
      await database.drop();
    });

    /** A reflow of 1-4 days in the demo month; a room with confirmed bookings then, so there is work. */
    const randomReflow = async (dryRun: boolean) => {
      const days = random.int(1, 4);
      const first = random.int(1, 30 - days + 1);
      const from = `2026-09-${String(first).padStart(2, '0')}`;
      const to = `2026-09-${String(first + days - 1).padStart(2, '0')}`;
      const busiest = await sql.all<{ room: string }>(
        `SELECT room_id AS room, count(*) AS n FROM bookings WHERE status = 'confirmed' AND start_at >= ? AND start_at < ?
         GROUP BY room_id ORDER BY n DESC, room_id LIMIT 3`,
        Date.parse(`${from}T00:00:00Z`),
        Date.parse(`${to}T23:59:59Z`),
      );
      const room = busiest.length ? random.pick(busiest).room : random.pick(rooms);
      return { month: '2026-09', offline_rooms: [room], from, to, ...(dryRun ? { dry_run: true } : {}) };
    };

    /** After a failed request: did the server die (its exit event may trail the socket error a little)? */
    const diedMeanwhile = async () =>
      server !== undefined && (await Promise.race([server.exited.then(() => true), sleep(3_000).then(() => false)]));

    const submit = async (url: string, args: Record<string, unknown>): Promise<string | undefined> => {
      try {
        const { body } = await rpc(url, 'tools/call', { name: 'reflow_month', arguments: args });
        if (body.result?.resultType !== 'task')
          throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 300)}`);
        received.add(body.result.taskId);
        return body.result.taskId as string;
      } catch (error) {
        // The server died with this request in flight: the client never got an id, so nothing is owed.
        if (await diedMeanwhile()) return undefined;
        throw error;
      }
    };

    /** Every id any client received answers tasks/get (none is -32602 "not found"). */
    const checkAllAnswer = async (url: string) => {
      for (const taskId of received) {
        let body;
        try {
          ({ body } = await rpc(url, 'tasks/get', { taskId }));
        } catch (error) {
          // With the apply fault armed, a task left from an earlier round may kill the server first; the next start checks again.
          if (await diedMeanwhile()) return;
          throw error;
        }
        assert.ok(
          body.result?.taskId === taskId,
          `tasks/get ${taskId} after restart: ${JSON.stringify(body.error ?? body)}`,
        );
      }
    };

    const eventSeen = async (taskIds: string[], kind: string) => {
      if (taskIds.length === 0) return undefined;
      const marks = taskIds.map(() => '?').join(',');
      return sql.get<{ task_id: string }>(
        `SELECT task_id FROM task_events WHERE kind = ? AND attempt >= 1 AND task_id IN (${marks}) LIMIT 1`,
        kind,
        ...taskIds,
      );
    };

    /** Rounds that landed at each kill point the test promises to exercise. */
    const landed = (): Record<KillPoint, number> => ({
      'after-create': counts.killedAfterCreate,
      'mid-solve': counts.killedMidSolve,
      'in-apply': counts.killedInApply,
    });
    /** The planned rotation; after it, re-aim (bounded) at any kill point that never landed. */
    const modeOfRound = (round: number): Mode | undefined => {
      if (round < ROUNDS) return MODES[round % MODES.length];
      if (round >= ROUNDS + MAX_RE_AIMS) return undefined;
      return KILL_POINTS.find((point) => landed()[point] === 0);
    };

    const started = Date.now();
    try {
      for (let round = 0; ; round++) {
        const mode = modeOfRound(round);
        if (!mode) break;
        if (round >= ROUNDS) counts.reAims++;
        const roundStart = Date.now();
        const killAfterMoves = random.int(1, 6);
        try {
          server = await startServerProcess(
            databasePath,
            mode === 'in-apply' ? { ...ENV, FAULT_KILL_IN_APPLY_AFTER_MOVES: String(killAfterMoves) } : ENV,
            true,
          );
        } catch (error) {
          // Recovery starts before the port opens: a task left from an earlier round may reach its
          // apply, and the armed fault, before the server is listening. That is a kill inside apply too.
          if (!(mode === 'in-apply' && error instanceof ServerExitedEarly && error.how === 'SIGKILL')) throw error;
          counts.restarts++;
          counts.killedInApply++;
          counts.kills++;
          counts.rounds++;
          continue;
        }
        counts.restarts++;
        const startedIn = Date.now() - roundStart;
        await checkAllAnswer(server.mcpUrl);
        const url = server.mcpUrl;
        const batch =
          mode === 'in-apply'
            ? [false, ...Array.from({ length: random.int(0, 1) }, () => random.chance(0.5))]
            : Array.from({ length: random.int(1, 3) }, () => random.chance(0.35));
        const ids: string[] = [];

        if (mode === 'after-create') {
          // Kill the moment the first CreateTaskResult arrives; the others are still in flight. Several
          // at once, so creates share a group commit and the kill lands while the next one is forming.
          const creates = [...batch, ...Array.from({ length: random.int(2, 5) }, () => random.chance(0.35))];
          const first = await Promise.race(creates.map(async (dry) => submit(url, await randomReflow(dry))));
          await server.kill();
          if (first) counts.killedAfterCreate++;
        } else {
          for (const dry of batch) {
            const id = await submit(url, await randomReflow(dry));
            if (id) ids.push(id);
          }
          if (mode === 'mid-solve') {
            // The first progress event is written once the snapshot is read, just before the worker solves.
            const hit = await pollFor(() => eventSeen(ids, 'progress'), 10_000, 5);
            await new Promise((r) => setTimeout(r, random.int(0, 120)));
            await server.kill();
            if (hit) counts.killedMidSolve++;
          } else if (mode === 'in-apply') {
            // The process kills itself inside its first apply transaction; if no apply came (nothing to move), we do.
            const how = await Promise.race([
              server.exited,
              new Promise<string>((r) => setTimeout(() => r('still running'), 15_000)),
            ]);
            if (how === 'SIGKILL') counts.killedInApply++;
            else await server.kill();
          } else {
            if (ids.length && random.chance(0.4)) {
              await rpc(url, 'tasks/cancel', { taskId: random.pick(ids) });
              counts.cancels++;
            }
            await new Promise((r) => setTimeout(r, random.int(0, 700)));
            await server.kill();
          }
        }
        counts.kills++;
        counts.rounds++;
        if (process.env.CRASH_VERBOSE)
          console.log(
            `round ${round} ${mode}: ${((Date.now() - roundStart) / 1000).toFixed(2)} s (start ${startedIn} ms), ids ${ids.length}`,
          );
      }

      // The last start: no faults. Everything settles; then a clean SIGTERM closes the database.
      server = await startServerProcess(databasePath, ENV, false);
      counts.restarts++;
      await checkAllAnswer(server.mcpUrl);
      const settled = await pollFor(
        async () =>
          (await sql.value("SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required')")) === 0
            ? true
            : undefined,
        60_000,
        50,
      );
      assert.ok(settled, 'every task settled after the last restart');
      await checkAllAnswer(server.mcpUrl);
      // A task that lost every attempt to a kill failed with a JSON-RPC error saying so.
      for (const taskId of received) {
        const { body } = await rpc(server.mcpUrl, 'tasks/get', { taskId });
        if (body.result.status === 'failed') {
          assert.equal(body.result.error.code, -32603);
          assert.match(
            body.result.error.message,
            /^Gave up after \d attempt\(s\): each time, the process running it stopped/,
          );
        }
      }
      const ended = await server.terminate(15_000);
      assert.equal(ended, 'exit 0', `SIGTERM ends the server cleanly:\n${server.output().slice(-2000)}`);

      const summary = await checkInvariants(sql, before);
      if (process.env.CRASH_VERBOSE)
        console.log(await sql.all("SELECT id, status, error FROM tasks WHERE status <> 'completed'"));
      const interrupted = await sql.value<number>(
        "SELECT count(DISTINCT task_id) AS n FROM task_events WHERE kind = 'released'",
      );
      assert.ok(received.size > 0);
      console.log(
        `crash test on ${store.dialect} (CRASH_SEED=${SEED}): rounds ${counts.rounds}, kills ${counts.kills} (after create ${counts.killedAfterCreate}, mid-solve ${counts.killedMidSolve}, ` +
          `inside apply ${counts.killedInApply}; ${counts.reAims} rounds re-aimed), restarts ${counts.restarts}, tasks ${summary.tasks} (ids received ${received.size}; ` +
          `${Object.entries(summary.byStatus)
            .map(([s, n]) => `${s} ${n}`)
            .join(', ')}), attempts interrupted ${interrupted}, cancels ${counts.cancels}, ` +
          `moves applied ${summary.appliedMoves}, needs_rebooking ${summary.needsRebooking}, lost 0, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      for (const [point, n] of Object.entries(landed()))
        assert.ok(n > 0, `no kill landed ${point} in ${counts.rounds} rounds (${counts.reAims} re-aimed)`);
    } catch (error) {
      if (server) console.error(`server output (CRASH_SEED=${SEED}):\n${server.output().slice(-3000)}`);
      throw error;
    } finally {
      if (server && !server.dead) await server.kill();
    }
  },
);
