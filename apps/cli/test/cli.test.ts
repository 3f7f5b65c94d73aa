// The command line as a person runs it: `npx reflow import` and `npm run demo`, as subprocesses.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { READS_THE_SQLITE_FILE, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { after, test } = sqliteOnlyFile(READS_THE_SQLITE_FILE);

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/reflow.mjs');
const dir = mkdtempSync(join(tmpdir(), 'reflow-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const reflow = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });

test('reflow import creates and migrates the database, refuses to mix, and a bad file changes nothing', () => {
  const db = join(dir, 'import.db');
  const ok = reflow(['import', DEMO_SITE_PATH], { DATABASE_PATH: db });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /Imported Riverside Studios .*9 rooms, 68 series, 1010 bookings/);

  const again = reflow(['import', DEMO_SITE_PATH], { DATABASE_PATH: db });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already holds a site; pass --replace/);

  const bad = JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8'));
  bad.bookings[40].roomId = 'studio-q';
  const badFile = join(dir, 'bad.json');
  writeFileSync(badFile, JSON.stringify(bad));
  const snapshot = () => {
    const reader = new Database(db, { readonly: true });
    try {
      return JSON.stringify(reader.prepare('SELECT * FROM bookings ORDER BY id').all());
    } finally {
      reader.close();
    }
  };
  const before = snapshot();
  const refused = reflow(['import', badFile, '--replace'], { DATABASE_PATH: db });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /bookings\[40\] \(bk-\d+\)\.roomId: unknown room studio-q/);
  assert.equal(snapshot(), before);

  const missing = reflow(['import', join(dir, 'nope.json')], { DATABASE_PATH: db });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /Cannot read/);
});

test('the demo tells the whole story and tells it the same way twice', () => {
  const runs = [1, 2].map(() =>
    spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, encoding: 'utf8', timeout: 120_000 }),
  );
  for (const run of runs) {
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /← CreateTaskResult \{"resultType":"task","taskId":"tsk_[0-9a-f]{40}","status":"working"/);
    assert.match(run.stdout, /progress +Reflowing 142 bookings in studio-b, 7–20 Sep: \d+ of \d+ groups solved/);
    assert.match(run.stdout, /moved (\d+), unresolved (\d+) \(of 142 affected\)/);
    assert.match(run.stdout, /✓ no two confirmed bookings overlap in any room/);
    assert.doesNotMatch(run.stdout, /✗/);
  }
  const story = (out: string) => out.slice(out.indexOf('\nmoved '));
  assert.equal(story(runs[0].stdout), story(runs[1].stdout), 'same moves and reasons on a fresh database each run');
});
