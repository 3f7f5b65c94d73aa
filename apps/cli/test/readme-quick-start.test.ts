// The README's quick start, run as written: every command the README marks `<!-- checked: … -->`
// is run through a shell and must print the key lines of the fenced block that follows the mark.
// A change to the README or to what a command prints, without the other, fails here.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServerProcess, type ServerProcess } from '@reflow/server-app/process';
import { keyLinePattern, readmeChecks } from './readme-checks.ts';
import { root } from './cli-helpers.ts';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
// The --outlive act has its own test (demo-outlive.test.ts), which also checks its README lines.
const checks = readmeChecks(readme).filter((c) => !c.command.includes('--outlive'));
const dir = mkdtempSync(join(tmpdir(), 'reflow-readme-'));
let server: ServerProcess;

before(async () => {
  // `npm start`, as the README says, on a fresh database seeded with the demo month and a free port.
  server = await startServerProcess(join(dir, 'reflow.db'));
});
after(async () => {
  const started = server as ServerProcess | undefined; // unset when before() failed
  if (started && !started.dead) await started.terminate(15_000);
  rmSync(dir, { recursive: true, force: true });
});

test('the README marks the quick-start commands, and each is one the README tells the reader to type', () => {
  const commands = checks.map((c) => c.command);
  for (const wanted of ['npm run demo', 'npx reflow call ', 'npx reflow tasks list'])
    assert.ok(
      commands.some((c) => c.startsWith(wanted)),
      `no checked output for "${wanted}…" in README.md`,
    );
  const typed = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1].split('\n').flatMap((line) => line.replace(/#.*$/, '').split('&&')),
  );
  for (const command of commands)
    assert.ok(
      typed.some((line) => line.trim() === command),
      `"${command}" is checked but no sh block of the README shows it`,
    );
});

// In README order: the call creates the task `reflow tasks list` then shows.
for (const check of checks) {
  test(`README: \`${check.command}\` prints what the README says`, async () => {
    const bareUrl = server.mcpUrl.replace(/\/mcp$/, '');
    const run = await shell(check.command, {
      REFLOW_URL: bareUrl,
      REFLOW_STATE_FILE: join(dir, 'state.json'),
    });
    assert.equal(run.code, 0, `exit ${run.code}\n${run.output}`);
    const lines = run.output.split('\n').map((l) => l.trim());
    const missing = check.keyLines.filter((key) => !lines.some((line) => keyLinePattern(key).test(line)));
    assert.deepEqual(
      missing,
      [],
      `key lines the README quotes that \`${check.command}\` did not print:\n${run.output}`,
    );
  });
}

test('a key line matches only what it says: … stands for any text, nothing else is loose', () => {
  const pattern = keyLinePattern('Task tsk_… (saved to …; poll every 1000 ms)');
  assert.ok(pattern.test('Task tsk_12ab (saved to /tmp/x.json; poll every 1000 ms)'));
  assert.ok(!pattern.test('Task tsk_12ab (saved to /tmp/x.json; poll every 2000 ms)'));
  assert.ok(keyLinePattern('│ Task │ Status │').test('│ Task     │ Status    │'));
  assert.ok(!keyLinePattern('moved 136, unresolved 6').test('moved 135, unresolved 7'));
});

function shell(command: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd: root, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
