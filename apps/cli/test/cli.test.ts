// The command line as a person runs it: `npx reflow import` and `npm run demo`, as subprocesses,
// on this run's store (a SQLite file, or on PostgreSQL a fresh database named with --database-url).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore, type Store } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { freshTestDatabase, onPostgres } from '../../../scripts/test-store.mjs';
import { testSql } from '../../../scripts/test-sql.mjs';
import { reflowArgv, root } from './cli-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'reflow-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The environment's store variables are blanked: only what a test names chooses the store.
const run = (command: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', DATABASE_PATH: '', ...env },
    timeout: 120_000,
  });
const reflow = (args: string[], env?: Record<string, string>) => run(process.execPath, [...reflowArgv, ...args], env);

test('reflow import creates and migrates the database, refuses to mix, and a bad file changes nothing', async (t) => {
  // SQLite: a file not yet there, named by $DATABASE_PATH. PostgreSQL: an empty database, named by --database-url.
  const database = onPostgres() ? await freshTestDatabase() : undefined;
  let store: Store | undefined;
  t.after(async () => {
    await store?.close();
    await database?.drop();
  });
  const location = database?.location ?? join(dir, 'import.db');
  const importInto = (args: string[]) =>
    database ? reflow([...args, '--database-url', location]) : reflow(args, { DATABASE_PATH: location });

  const ok = importInto(['import', DEMO_SITE_PATH]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /Imported Riverside Studios .*9 rooms, 68 series, 1010 bookings/);
  // A second connection, as another process would open it: what the import wrote, read through the store.
  store = await openStore(database ? { databaseUrl: location } : { databasePath: location });
  assert.equal((await store.site.listRooms()).length, 9);
  assert.equal(await store.site.bookingCount(), 1010);

  const again = importInto(['import', DEMO_SITE_PATH]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already holds a site; pass --replace/);

  const bad = JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8'));
  bad.bookings[40].roomId = 'studio-q';
  const badFile = join(dir, 'bad.json');
  writeFileSync(badFile, JSON.stringify(bad));
  // Every column of every booking, as stored.
  const sql = await testSql(store);
  const snapshot = async () => JSON.stringify(await sql.all('SELECT * FROM bookings ORDER BY id'));
  const before = await snapshot();
  assert.equal(JSON.parse(before).length, 1010);
  const refused = importInto(['import', badFile, '--replace']);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /bookings\[40\] \(bk-\d+\)\.roomId: unknown room studio-q/);
  assert.equal(await snapshot(), before);

  const missing = importInto(['import', join(dir, 'nope.json')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /Cannot read/);
  assert.equal(await snapshot(), before);
});

test('the demo tells the whole story and tells it the same way twice', async (t) => {
  // A fresh database each run: SQLite's is the demo's own temporary file, PostgreSQL's one made here.
  const runs = [];
  for (let i = 0; i < 2; i++) {
    const database = onPostgres() ? await freshTestDatabase() : undefined;
    if (database) t.after(() => database.drop());
    const demo = run('npm', [
      'run',
      '--silent',
      'demo',
      ...(database ? ['--', '--database-url', database.location] : []),
    ]);
    const name = database ? new URL(database.location).pathname.slice(1) : undefined;
    runs.push({ demo, where: name ? new RegExp(`database 127\\.0\\.0\\.1:\\d+/${name} `) : /database \S+reflow\.db / });
  }
  for (const { demo, where } of runs) {
    assert.equal(demo.status, 0, demo.stderr);
    assert.match(demo.stdout, where, 'on the store the test chose');
    assert.match(
      demo.stdout,
      /← CreateTaskResult \{"resultType":"task","taskId":"tsk_[0-9a-f]{40}","status":"working"/,
    );
    assert.match(demo.stdout, /progress +Reflowing 142 bookings in studio-b, 7–20 Sep: \d+ of \d+ groups solved/);
    assert.match(demo.stdout, /moved (\d+), unresolved (\d+) \(of 142 affected\)/);
    assert.match(demo.stdout, /✓ no two confirmed bookings overlap in any room/);
    assert.doesNotMatch(demo.stdout, /✗/);
  }
  const story = (out: string) => out.slice(out.indexOf('\nmoved '));
  assert.equal(
    story(runs[0].demo.stdout),
    story(runs[1].demo.stdout),
    'same moves and reasons on a fresh database each run',
  );
});
