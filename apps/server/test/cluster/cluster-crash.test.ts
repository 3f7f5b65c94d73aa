// The crash test's cluster twin: three server processes on one PostgreSQL database, on three ports,
// and clients that send every request to the next node in turn (a load balancer without sticky
// sessions). Round after round, the node running an attempt is SIGKILLed — right after a client got
// the task's handle, in the middle of the solve, or inside the apply transaction (the test-only
// FAULT_KILL_IN_APPLY_AFTER_MOVES hook) — and restarted. Afterwards every task id a client received
// is terminal and reads the same from every node, a task whose node died mid-attempt was finished by
// another node, the bookings are the before-state plus the audited moves, no two overlapping scopes
// were ever claimed at once, and no principal ever had more unfinished tasks than its cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRng } from '@reflow/seed';
import { ServerExitedEarly } from '../../harness/server-process.ts';
import { ELICITING_CLIENT } from '../helpers/approval-helper.ts';
import { NoAnswer, RoundRobin } from './cluster-client.ts';
import { ClusterNode, freePort, pidOf, rows, seededClusterDatabase, type ClusterDatabase } from './cluster-helper.ts';
import { checkClusterInvariants, readBookings } from './cluster-invariants.ts';
import { rpc } from '../helpers/test-server.ts';

const ROUNDS = Number(process.env.CLUSTER_ROUNDS ?? 20);
const SEED = Number(process.env.CLUSTER_SEED ?? Date.now() % 1_000_000);
/** Unfinished tasks a principal may have, across the cluster. */
const CAP = 3;
const TOKENS = {
  alice: 'alice-cluster-token-0001',
  bob: 'bob-cluster-token-000002',
  carol: 'carol-cluster-token-0003',
} as const;
type Principal = keyof typeof TOKENS;
const ENV = {
  // Short leases, so a survivor takes a dead node's attempt over within seconds.
  LEASE_MS: '1500',
  MAX_ATTEMPTS: '5',
  WORKERS: '1',
  SHUTDOWN_GRACE_MS: '1000',
  // The HTTP rate limit is out of the way: these clients poll hard on purpose.
  HTTP_RATE_LIMIT_PER_MINUTE: '0',
  AUTH_TOKENS: Object.entries(TOKENS)
    .map(([who, token]) => `${who}:client:${token}`)
    .join(','),
  MAX_ACTIVE_TASKS_PER_PRINCIPAL: String(CAP),
  // The rate bucket is out of the way: the cap counted in the database is what is checked.
  TASK_RATE_BURST: '1000',
  TASK_RATE_PER_MINUTE: '60000',
};
const MODES = ['after-create', 'mid-solve', 'in-apply', 'random-delay'] as const;
type Mode = (typeof MODES)[number];
const KILL_POINTS = ['after-create', 'mid-solve', 'in-apply'] as const;
type KillPoint = (typeof KILL_POINTS)[number];
const MAX_RE_AIMS = 12;

test(
  `a cluster of three nodes on PostgreSQL, the running node SIGKILLed ${ROUNDS} times: nothing lost, no scope claimed twice`,
  { timeout: 1_500_000 }, // below the runner's 1800 s, so this test's t.after still kills its servers
  async (t) => {
    const started = Date.now();
    const random = createRng(SEED);
    const db: ClusterDatabase = await seededClusterDatabase();
    const before = await readBookings(db);
    const rooms = (await rows<{ id: string }>(db, 'SELECT id FROM rooms ORDER BY id')).map((r) => r.id);
    const ports = [await freePort(), await freePort(), await freePort()];
    const nodes = ['A', 'B', 'C'].map((name, i) => new ClusterNode(name, ports[i], db.url, ENV));
    t.after(async () => {
      for (const node of nodes) await node.kill();
      await db.drop();
    });
    await Promise.all(nodes.map((node) => node.start()));
    const client = new RoundRobin(nodes);

    const received = new Map<string, Principal>();
    const counts = {
      rounds: 0,
      kills: 0,
      killedAfterCreate: 0,
      killedMidSolve: 0,
      killedInApply: 0,
      missed: 0,
      restarts: 0,
      reAims: 0,
      cancels: 0,
      refusedByCap: 0,
      noAnswer: 0,
    };

    /** A reflow of 1–4 days in the demo month, of a room busy then. */
    const randomReflow = async (dryRun: boolean) => {
      const days = random.int(1, 4);
      const first = random.int(1, 30 - days + 1);
      const from = `2026-09-${String(first).padStart(2, '0')}`;
      const to = `2026-09-${String(first + days - 1).padStart(2, '0')}`;
      const busiest = await rows<{ room: string }>(
        db,
        `SELECT room_id AS room, count(*) AS n FROM bookings WHERE status = 'confirmed' AND start_at >= $1 AND start_at < $2
         GROUP BY room_id ORDER BY n DESC LIMIT 3`,
        [Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T23:59:59Z`)],
      );
      const room = busiest.length ? random.pick(busiest).room : random.pick(rooms);
      return { month: '2026-09', offline_rooms: [room], from, to, ...(dryRun ? { dry_run: true } : {}) };
    };

    /** Creates a task through the next node; undefined when refused by the cap or cut off by a death. */
    const submit = async (args: Record<string, unknown>, who: Principal): Promise<string | undefined> => {
      try {
        const { body } = await client.send(
          'tools/call',
          { name: 'reflow_month', arguments: args },
          TOKENS[who],
          ELICITING_CLIENT,
        );
        if (body.result?.resultType === 'task') {
          received.set(body.result.taskId, who);
          return body.result.taskId as string;
        }
        if (JSON.stringify(body).includes('RFL_TOO_MANY_TASKS')) {
          counts.refusedByCap++;
          return undefined;
        }
        throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 300)}`);
      } catch (error) {
        if (!(error instanceof NoAnswer)) throw error;
        counts.noAnswer++;
        return undefined;
      }
    };

    /** Every id any client received answers tasks/get, through whichever node is next. */
    const checkAllAnswer = async () => {
      for (const [taskId, who] of received) {
        const { body } = await client.read('tasks/get', { taskId }, TOKENS[who]);
        assert.equal(body.result?.taskId, taskId, `tasks/get ${taskId}: ${JSON.stringify(body.error ?? body)}`);
      }
    };

    /** The node whose process claimed the task's current attempt, once one has. */
    const runnerOf = async (taskIds: string[]) => {
      const claim = (
        await rows<{ task_id: string; attempt: number; data: { by: string } }>(
          db,
          `SELECT e.task_id, e.attempt, e.data FROM task_events e JOIN tasks t ON t.id = e.task_id
         WHERE e.kind = 'claimed' AND e.attempt = t.attempt AND t.status = 'working' AND t.claimed_by IS NOT NULL
           AND e.task_id = ANY($1) ORDER BY e.id DESC`,
          [taskIds],
        )
      ).at(0);
      if (!claim) return undefined;
      const node = nodes.find((n) => n.up && n.process!.pid === pidOf(claim.data.by));
      return node ? { node, taskId: claim.task_id, attempt: claim.attempt } : undefined;
    };

    /** Polls until `probe` finds something, or gives up with undefined. */
    const waitFor = async <T>(probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 5) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = await probe();
        if (found !== undefined || Date.now() > deadline) return found;
        await sleep(everyMs);
      }
    };

    /** Kills the node; whether its attempt was still its own (nothing had ended it) when it died. */
    const killRunner = async (runner: { node: ClusterNode; taskId: string; attempt: number }) => {
      await runner.node.kill();
      const ends = await rows(
        db,
        `SELECT 1 FROM task_events WHERE task_id = $1 AND attempt = $2
           AND kind IN ('completed', 'failed', 'cancelled', 'released', 'input_required')`,
        [runner.taskId, runner.attempt],
      );
      return ends.length === 0;
    };

    const landed = (): Record<KillPoint, number> => ({
      'after-create': counts.killedAfterCreate,
      'mid-solve': counts.killedMidSolve,
      'in-apply': counts.killedInApply,
    });
    const modeOfRound = (round: number): Mode | undefined => {
      if (round < ROUNDS) return MODES[round % MODES.length];
      if (round >= ROUNDS + MAX_RE_AIMS) return undefined;
      return KILL_POINTS.find((point) => landed()[point] === 0);
    };

    /** Restarts under way; a failed one fails the test when next awaited. */
    const background: Promise<void>[] = [];
    try {
      // The cap across nodes: six gated reflows at once, two through each node. Gated ones wait for
      // an answer, so none finishes meanwhile: exactly CAP are accepted, whichever node took them.
      const burst = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          submit(
            {
              month: '2026-09',
              offline_rooms: [rooms[i % rooms.length]],
              from: `2026-09-${String(10 + i).padStart(2, '0')}`,
              to: `2026-09-${String(10 + i).padStart(2, '0')}`,
              confirm: true,
            },
            'carol',
          ),
        ),
      );
      const accepted = burst.filter((id): id is string => id !== undefined);
      assert.equal(accepted.length, CAP, `of 6 creates at once through 3 nodes, the cap (${CAP}) admits ${CAP}`);
      assert.equal(counts.refusedByCap, 6 - CAP);
      // Each parks for its question (overlapping ones in turn: a parked task holds its days); the
      // decline goes through whichever node is next, not necessarily the one that parked it.
      const unanswered = new Set(accepted);
      const answeredAll = await waitFor(
        async () => {
          for (const taskId of unanswered) {
            const { body } = await client.read('tasks/get', { taskId }, TOKENS.carol);
            if (body.result?.status !== 'input_required') continue;
            const [key] = Object.keys(body.result.inputRequests as Record<string, unknown>);
            const answer = await client.send(
              'tasks/update',
              { taskId, inputResponses: { [key]: { action: 'decline' } } },
              TOKENS.carol,
              ELICITING_CLIENT,
            );
            assert.equal(answer.body.result?.resultType, 'complete', JSON.stringify(answer.body));
            unanswered.delete(taskId);
          }
          return unanswered.size === 0 ? true : undefined;
        },
        120_000,
        100,
      );
      assert.ok(answeredAll, `the gated reflows parked and were answered (left: ${[...unanswered].join(', ')})`);

      for (let round = 0; ; round++) {
        const mode = modeOfRound(round);
        if (!mode) break;
        if (round >= ROUNDS) counts.reAims++;
        const roundStart = Date.now();
        const who: Principal = random.chance(0.5) ? 'alice' : 'bob';
        // Restart the nodes that are down, in the background (the clients skip a node while it
        // starts); an in-apply round first arms the fault on one of them and waits for it.
        let armed: ClusterNode | undefined;
        if (mode === 'in-apply') {
          await Promise.all(background.splice(0));
          armed = nodes.find((n) => !n.up) ?? random.pick(nodes);
          if (armed.up) await armed.process!.terminate(15_000);
          counts.restarts++;
          try {
            await armed.start({ FAULT_KILL_IN_APPLY_AFTER_MOVES: String(random.int(1, 6)) });
          } catch (error) {
            // A task left from an earlier round reached the armed node's apply before it listened.
            if (!(error instanceof ServerExitedEarly && error.how === 'SIGKILL')) throw error;
            counts.killedInApply++;
            counts.kills++;
            counts.rounds++;
            continue;
          }
        }
        for (const node of nodes.filter((n) => !n.up)) {
          counts.restarts++;
          const restart = node.ensureStarted().then(() => undefined);
          restart.catch(() => {}); // heard when awaited, at the next in-apply round or the end
          background.push(restart);
        }
        // A survivor must be there to take over: at least two nodes up before the next kill.
        const quorum = await waitFor(
          async () => (nodes.filter((n) => n.up).length >= 2 ? true : undefined),
          60_000,
          50,
        );
        assert.ok(quorum, 'two nodes up again within 60 s');
        if (round % 4 === 0) await checkAllAnswer();

        if (mode === 'after-create') {
          // The moment a client holds the handle, find the node that claimed the task and kill it.
          const batch = Array.from({ length: random.int(1, 3) }, () => random.chance(0.35));
          const submits = batch.map(async (dry) => submit(await randomReflow(dry), who));
          const first = await Promise.race(submits);
          const runner = first ? await waitFor(() => runnerOf([first]), 5_000) : undefined;
          if (runner && (await killRunner(runner))) counts.killedAfterCreate++;
          else if (runner) counts.missed++;
          else await random.pick(nodes).kill();
          await Promise.allSettled(submits);
        } else if (mode === 'mid-solve') {
          const ids: string[] = [];
          for (const dry of Array.from({ length: random.int(1, 3) }, () => random.chance(0.35))) {
            const id = await submit(await randomReflow(dry), who);
            if (id) ids.push(id);
          }
          // The first progress is written once the snapshot is read, just before the worker solves.
          const solving = await waitFor(async () => {
            const p = (
              await rows<{ task_id: string }>(
                db,
                `SELECT e.task_id FROM task_events e JOIN tasks t ON t.id = e.task_id
               WHERE e.kind = 'progress' AND e.attempt = t.attempt AND t.status = 'working' AND e.task_id = ANY($1) LIMIT 1`,
                [ids],
              )
            ).at(0);
            return p ? runnerOf([p.task_id]) : undefined;
          }, 10_000);
          await sleep(random.int(0, 120));
          if (solving && (await killRunner(solving))) counts.killedMidSolve++;
          else if (solving) counts.missed++;
          else await random.pick(nodes).kill();
        } else if (mode === 'in-apply') {
          // One create through each node: the armed one likely claims one of them (or a leftover) and
          // kills itself inside the apply; if it never applies, we kill it.
          const ids: string[] = [];
          for (let i = 0; i < nodes.length; i++) {
            const id = await submit(await randomReflow(false), who);
            if (id) ids.push(id);
          }
          const allEnded = waitFor(
            async () => {
              const [{ n }] = await rows<{ n: number }>(
                db,
                "SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status IN ('working', 'input_required')",
                [ids],
              );
              return n === 0 ? 'all ended' : undefined;
            },
            10_000,
            100,
          );
          const how = await Promise.race([armed!.process!.exited, allEnded]);
          if (how === 'SIGKILL') counts.killedInApply++;
          else {
            await armed!.kill();
            counts.missed++;
          }
        } else {
          const ids: string[] = [];
          for (const dry of Array.from({ length: random.int(1, 3) }, () => random.chance(0.35))) {
            const id = await submit(await randomReflow(dry), who);
            if (id) ids.push(id);
          }
          if (ids.length && random.chance(0.4)) {
            await client.send('tasks/cancel', { taskId: random.pick(ids) }, TOKENS[who]).catch(() => undefined);
            counts.cancels++;
          }
          await sleep(random.int(0, 700));
          const runner = ids.length ? await runnerOf(ids) : undefined;
          if (runner) await runner.node.kill();
          else {
            const up = nodes.filter((n) => n.up);
            if (up.length) await random.pick(up).kill();
          }
        }
        counts.kills++;
        counts.rounds++;
        if (process.env.CLUSTER_VERBOSE)
          console.log(
            `round ${round} ${mode}: ${((Date.now() - roundStart) / 1000).toFixed(2)} s, received ${received.size}`,
          );
      }

      // The last starts: no faults. Everything settles (a survivor takes over within a lease and a sweep).
      await Promise.all(background.splice(0));
      const down = nodes.filter((n) => !n.up);
      await Promise.all(down.map((n) => n.start()));
      counts.restarts += down.length;
      const settled = await waitFor(
        async () => {
          const [{ n }] = await rows<{ n: number }>(
            db,
            "SELECT count(*)::int AS n FROM tasks WHERE status IN ('working', 'input_required')",
          );
          return n === 0 ? true : undefined;
        },
        120_000,
        100,
      );
      assert.ok(settled, 'every task settled after the last restarts');
      await checkAllAnswer();

      // Every id reads the same from every node; a task that lost every attempt says why.
      for (const [taskId, who] of received) {
        const answers = await Promise.all(
          nodes.map(async (node) => (await rpc(node.mcpUrl, 'tasks/get', { taskId }, { token: TOKENS[who] })).body),
        );
        const [first] = answers;
        assert.ok(['completed', 'failed', 'cancelled'].includes(first.result?.status), JSON.stringify(first));
        for (const [i, answer] of answers.entries())
          assert.deepEqual(answer.result, first.result, `${taskId} reads the same from ${nodes[i].name} as from A`);
        if (first.result.status === 'failed')
          assert.match(
            first.result.error.message,
            /^Gave up after \d attempt\(s\): each time, the process running it stopped/,
          );
      }
      for (const node of nodes) {
        const ended = await node.process!.terminate(15_000);
        assert.equal(
          ended,
          'exit 0',
          `SIGTERM ends node ${node.name} cleanly:\n${node.process!.output().slice(-2000)}`,
        );
      }

      const deaths = new Map(nodes.flatMap((n) => [...n.deaths]));
      const summary = await checkClusterInvariants(db, before, deaths, CAP);
      console.log(
        `cluster crash test (CLUSTER_SEED=${SEED}): 3 nodes, rounds ${counts.rounds}, kills ${counts.kills} ` +
          `(after create ${counts.killedAfterCreate}, mid-solve ${counts.killedMidSolve}, inside apply ${counts.killedInApply}, ` +
          `too late ${counts.missed}; ${counts.reAims} rounds re-aimed), restarts ${counts.restarts}, ` +
          `tasks ${summary.tasks} (ids received ${received.size}; ${Object.entries(summary.byStatus)
            .map(([s, n]) => `${s} ${n}`)
            .join(', ')}), attempts ${summary.attempts} (cut by a death ${summary.attemptsCutByDeath}; ` +
          `tasks taken over and completed by another node ${summary.takenOverAndCompleted}), cancels ${counts.cancels}, ` +
          `creates refused by the cap ${counts.refusedByCap} (most unfinished at once: ${JSON.stringify(summary.maxUnfinishedPerPrincipal)}), ` +
          `creates cut off by a death ${counts.noAnswer}, scoped attempt pairs checked ${summary.scopedPairsChecked}, ` +
          `moves applied ${summary.appliedMoves}, needs_rebooking ${summary.needsRebooking}, lost 0, ` +
          `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      for (const [point, n] of Object.entries(landed()))
        assert.ok(n > 0, `no kill landed ${point} in ${counts.rounds} rounds (${counts.reAims} re-aimed)`);
      assert.ok(summary.takenOverAndCompleted > 0, 'some task whose node died mid-attempt was completed by another');
    } catch (error) {
      for (const node of nodes)
        if (node.process)
          console.error(`node ${node.name} output (CLUSTER_SEED=${SEED}):\n${node.process.output().slice(-3000)}`);
      throw error;
    }
  },
);
