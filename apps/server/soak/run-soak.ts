// The soak, programmatically: a real server process on a fresh database seeded with a generated
// site, mixed traffic for the given minutes while bookings are edited underneath, then a bounded
// wait for every task to end, the checks, and the report. soak.ts is its command line.
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DateTime } from 'luxon';
import { createRng } from '@reflow/seed';
import { startServerProcess } from '../harness/server-process.ts';
import { BookingEditor } from './booking-editor.ts';
import { checkBookings, readBookings } from './booking-checks.ts';
import { check, type CheckResult } from './check-result.ts';
import { tableSizes } from './db-peek.ts';
import { formatReport } from './report.ts';
import { checkRss, checkSweeper, checkWal } from './resource-checks.ts';
import { Sampler, type Sample } from './sampler.ts';
import { histogramMean, scrapeMetrics, server5xx, type MetricsText } from './server-metrics.ts';
import { writeSoakSite } from './soak-site.ts';
import { DEFAULT_SOAK_OPTIONS, defaultTtlMs, type SoakOptions } from './soak-options.ts';
import { checkTasks } from './task-checks.ts';
import { TaskLedger } from './task-ledger.ts';
import { startTraffic } from './traffic-mix.ts';
import { checkTraffic } from './traffic-checks.ts';
import { TrafficStats } from './traffic-stats.ts';

export interface SoakOutcome {
  passed: boolean;
  report: string;
  checks: CheckResult[];
}

/** How long the end waits for tasks still working when the traffic stops. */
const DRAIN_MS = 120_000;

export async function runSoak(options: Partial<SoakOptions> = {}): Promise<SoakOutcome> {
  const o: SoakOptions = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const ttlMs = o.ttlMs ?? defaultTtlMs(o.minutes);
  const progress = o.onProgress ?? (() => {});
  const site = writeSoakSite(o.seed);
  const env = {
    SEED_FILE: site.seedFile,
    WORKERS: '2',
    LOG_LEVEL: 'info',
    TASK_TTL_MS: String(ttlMs),
    POLL_INTERVAL_MS: String(o.serverPollMs),
  };
  const server = await startServerProcess(site.databasePath, env, true).catch((error) => {
    rmSync(site.dir, { recursive: true, force: true });
    throw error;
  });
  let editor: BookingEditor | undefined;
  let serverExit: string | undefined;
  try {
    const initial = readBookings(site.databasePath);
    const monthStart = DateTime.fromISO(`${site.month}-01`, { zone: site.timezone });
    editor = await BookingEditor.open(site.databasePath, site.timezone, {
      from: monthStart.toMillis(),
      to: monthStart.plus({ months: 1 }).toMillis(),
    });
    const stats = new TrafficStats();
    const ledger = new TaskLedger();
    const startedAt = Date.now();
    const trafficMs = o.minutes * 60_000;
    const stopAt = startedAt + trafficMs;
    const baseUrl = new URL(server.mcpUrl).origin;
    const sampler = new Sampler(server.pid, site.databasePath, baseUrl, startedAt);
    sampler.start(o.sampleEveryMs);
    const ctx = {
      mcpUrl: server.mcpUrl,
      baseUrl,
      site,
      stats,
      ledger,
      stopAt,
      taskWaitMs: Math.min(ttlMs, 90_000),
      pollMs: o.pollMs,
    };
    const traffic = startTraffic(ctx, o);
    const editing = editor.run(createRng(o.seed ^ 0xed17), o.editEveryMs, stopAt);
    const ticker = setInterval(() => {
      const last = sampler.samples.at(-1);
      progress(
        `soak ${((Date.now() - startedAt) / 60_000).toFixed(1)}/${o.minutes} min: ${ledger.entries.size} tasks, ${editor!.edits.length} edits, RSS ${last?.rssMb.toFixed(0)} MB, queue ${last?.queued}`,
      );
    }, 30_000);
    await Promise.all([traffic.done, editing]).finally(() => clearInterval(ticker));

    progress('soak: traffic stopped; waiting for every task to end');
    const drained = await waitForDrain(site.databasePath, DRAIN_MS);
    await sampler.stop();

    const metrics = await scrapeMetrics(baseUrl);
    const tasks = await checkTasks(site.databasePath, server.mcpUrl, ledger);
    const bookings = checkBookings(site.databasePath, initial, editor.edits);
    const rss = checkRss(sampler.samples, trafficMs / 1000, o.rssTolerance);
    const checks = [
      check(
        'server stayed up',
        !server.dead && drained,
        server.dead
          ? `server exited: ${server.output().slice(-500)}`
          : drained
            ? `pid ${server.pid} up throughout; queue drained`
            : `tasks still working ${DRAIN_MS / 1000} s after the traffic stopped`,
      ),
      ...tasks.checks,
      ...checkTraffic(stats, server5xx(metrics)),
      ...bookings.checks,
      rss.result,
      checkWal(sampler.samples, trafficMs / 1000),
      checkSweeper(site.databasePath, ttlMs, sampler.samples),
    ];
    serverExit = await server.terminate(15_000);
    const moved = editor.edits.filter((e) => e.kind === 'move').length;
    const report = formatReport({
      config: [
        `Soak ${o.minutes} min, seed ${o.seed}: ${traffic.description} + 1 operator (REST) + 1 booking editor (SQLite, same file)`,
        `Site: ${site.roomIds.length} rooms, ${site.month}, ${initial.size} bookings; server WORKERS=2 TASK_TTL_MS=${ttlMs} POLL_INTERVAL_MS=${o.serverPollMs}${o.pollMs ? `, clients poll every ${o.pollMs} ms` : ', clients poll at the pollIntervalMs the server hands out'}`,
      ],
      stats,
      tasksReceived: ledger.entries.size,
      dedupeHits: ledger.dedupeHits,
      byStatus: tasks.byStatus,
      bookings: `${bookings.moves} reflow moves, ${bookings.unresolvedRows} unresolved rows (audit, kept); editor ${editor.edits.length} edits (${moved} moves, ${editor.edits.length - moved} cancels, ${editor.skipped} found nothing to do); ${bookings.needsRebooking} set needs_rebooking`,
      samples: sampler.samples,
      server: serverLine(metrics, sampler.samples, server.pid === server.child.pid),
      rssSlopeMbPerMin: rss.slopeMbPerMin,
      checks,
      serverExit,
    });
    if (checks.some((c) => !c.pass))
      return {
        passed: false,
        report: `${report}\n--- server output (tail) ---\n${server.output().slice(-2_000)}`,
        checks,
      };
    return { passed: true, report, checks };
  } finally {
    await editor?.close();
    // The whole group: a helper the server started (esbuild, under tsx) may outlive it and hold its pipes open.
    await server.kill();
    rmSync(site.dir, { recursive: true, force: true });
  }
}

/** Polls until no task is working or waiting; false at the deadline. */
async function waitForDrain(databasePath: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (tableSizes(databasePath).unfinished > 0) {
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
  return true;
}

/** The server's own figures: solve and apply durations, event-loop lag, and whose RSS was sampled. */
function serverLine(metrics: MetricsText, samples: Sample[], rssOfServerItself: boolean): string {
  const solve = histogramMean(metrics, 'reflow_solve_duration_seconds');
  const apply = histogramMean(metrics, 'reflow_apply_duration_seconds');
  const lags = samples.map((s) => s.lagMaxMs ?? 0).sort((a, b) => a - b);
  const p99s = samples.map((s) => s.lagP99Ms ?? 0).sort((a, b) => a - b);
  const ms = (x: number | undefined) => (x === undefined ? '-' : `${(x * 1000).toFixed(0)} ms`);
  return (
    `Server (/metrics): ${metrics.sum('reflow_solve_duration_seconds_count')} solves, mean ${ms(solve)}; ${metrics.sum('reflow_apply_duration_seconds_count')} applies, mean ${ms(apply)}; ` +
    `event-loop lag per ${samples.length} samples: p99 median ${(p99s[Math.floor(p99s.length / 2)] ?? 0).toFixed(0)} ms, max ${(lags.at(-1) ?? 0).toFixed(0)} ms` +
    (rssOfServerItself ? '' : '; RSS sampled from the pid in its log, not the child')
  );
}
