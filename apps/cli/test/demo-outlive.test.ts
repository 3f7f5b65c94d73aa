// `npm run demo -- --outlive` as a person runs it: the server process is SIGKILLed mid-solve and
// restarted, and the same task completes. Checks the story the output tells, and the key lines the
// README quotes for it. Two acts, four server starts, two solves of seconds: minutes on a loaded machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from './cli-helpers.ts';
import { keyLinePattern, readmeChecks } from './readme-checks.ts';

const COMMAND = 'npm run demo -- --outlive';

test('--outlive: the server dies mid-solve, the same task id completes after the restart, the month is consistent', () => {
  const run = spawnSync('sh', ['-c', COMMAND], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.status, 0, output);
  const lines = output.split('\n').map((l) => l.trim());

  // The same task id in the handle, in the timeline's title and in the check after the restart.
  const handleId = /← CreateTaskResult taskId (tsk_[0-9a-f]{40})/.exec(output)?.[1];
  assert.ok(handleId, output);
  assert.match(output, new RegExp(`Timeline of ${handleId} `));
  assert.match(output, new RegExp(`✓ the same task id before the kill and after the restart: ${handleId}`));

  // The timeline in order: created, claimed (1), killed, restarted, claimed (2), completed (2).
  const timeline = lines.filter((l) => /^\+\s*\d+\.\d+ s\s/.test(l)).map((l) => l.replace(/^\+\s*\d+\.\d+ s\s+/, ''));
  const steps = [
    /^created /,
    /^claimed\s+attempt 1 /,
    /^killed /,
    /^restarted /,
    /^claimed\s+attempt 2 /,
    /^completed\s+attempt 2 /,
  ];
  let at = 0;
  for (const step of steps) {
    const found = timeline.findIndex((line, i) => i >= at && step.test(line));
    assert.ok(found >= 0, `timeline step ${step} missing or out of order:\n${timeline.join('\n')}`);
    at = found + 1;
  }
  assert.ok(!lines.some((l) => l.startsWith('✗ ') && !l.startsWith('✗ SIGKILL')), `a check failed:\n${output}`);

  // Act 2: reflow call's task is the one reflow resume finished.
  const callId = /\$ npx reflow call [^\n]*\n\s*Task (tsk_[0-9a-f]{40})/.exec(output)?.[1];
  assert.ok(callId && callId !== handleId, output);
  assert.match(output, new RegExp(`Resuming ${callId} `));
  assert.match(output, new RegExp(`✓ reflow resume finished the task reflow call started: ${callId}`));

  // What the README says it prints.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const check = readmeChecks(readme).find((c) => c.command === COMMAND);
  assert.ok(check, `README.md has no <!-- checked: ${COMMAND} --> block`);
  const missing = check.keyLines.filter((key) => !lines.some((line) => keyLinePattern(key).test(line)));
  assert.deepEqual(missing, [], `key lines the README quotes that --outlive did not print:\n${output}`);
});

test('--outlive refuses options that would point it at another server or database', () => {
  const run = spawnSync('sh', ['-c', `${COMMAND} --url http://127.0.0.1:1/mcp`], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /--outlive starts and kills its own server processes/);
});
