// Hostile requests that are well framed but ask for the wrong thing: invalid tool arguments (on the
// task path and the synchronous one), guessed task ids, and another principal's real ones.
import fc from 'fast-check';
import { escapeRegExp, rpcError, toolError } from './hostile-checks.ts';
import { sample, type Framer } from './hostile-framing.ts';

export function argumentCases({ ctx, call, reflow, valid, add }: Framer): void {
  // Invalid arguments, on both the task path (declaring) and the synchronous one.
  const badMonth = fc.string({ maxLength: 30 }).filter((s) => !/^\d{4}-(0[1-9]|1[0-2])$/.test(s));
  sample(badMonth, 20, 5).forEach((month, i) =>
    add(
      'invalid arguments',
      `month ${JSON.stringify(month)}`,
      reflow({ ...valid, month }, i % 2 === 0),
      toolError(/month: must be a month YYYY-MM/),
    ),
  );
  const roomId = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((r) => !ctx.rooms.includes(r));
  sample(roomId, 15, 6).forEach((room, i) =>
    add(
      'invalid arguments',
      `unknown room ${room}`,
      reflow({ ...valid, offline_rooms: [ctx.rooms[0], room] }, i % 2 === 0),
      toolError(/RFL_UNKNOWN_ROOM: Unknown room/),
    ),
  );
  for (const [from, to] of [
    ['2026-09-20', '2026-09-07'],
    ['2026-09-30', '2026-09-01'],
    ['2026-09-02', '2026-09-01'],
  ] as const)
    for (const declare of [true, false])
      add(
        'invalid arguments',
        `from ${from} after to ${to}`,
        reflow({ ...valid, from, to }, declare),
        toolError(/RFL_FROM_AFTER_TO: from .* is after to/),
      );
  for (const [from, to] of [
    ['2026-08-31', '2026-09-05'],
    ['2026-09-01', '2026-10-01'],
    ['2025-09-07', '2025-09-20'],
    ['2026-10-01', '2026-10-02'],
  ] as const)
    for (const declare of [true, false])
      add(
        'invalid arguments',
        `window ${from}..${to} outside the month`,
        reflow({ ...valid, from, to }, declare),
        toolError(/RFL_WINDOW_OUTSIDE_MONTH: (from|to) .* is outside 2026-09/),
      );
  for (const day of ['2026-09-31', '2026-09-00', '2026-09-99'])
    add(
      'invalid arguments',
      `date ${day}`,
      reflow({ ...valid, from: day, to: day }),
      toolError(/RFL_BAD_DATE: from .* is not a real date/),
    );
  for (const declare of [true, false]) {
    add(
      'invalid arguments',
      'empty room list',
      reflow({ ...valid, offline_rooms: [] }, declare),
      toolError(/name at least one room/),
    );
    add(
      'invalid arguments',
      '51 rooms',
      reflow({ ...valid, offline_rooms: Array.from({ length: 51 }, (_, i) => `room-${i}`) }, declare),
      toolError(/at most 50 rooms/),
    );
    add(
      'invalid arguments',
      'room id of 101 characters',
      reflow({ ...valid, offline_rooms: ['r'.repeat(101)] }, declare),
      toolError(/at most 100 characters/),
    );
    add(
      'invalid arguments',
      'room id of 100 kB',
      reflow({ ...valid, offline_rooms: ['r'.repeat(Math.floor(ctx.bodyLimit / 2))] }, declare),
      toolError(/at most 100 characters/),
    );
    add(
      'invalid arguments',
      'month of 10 kB',
      reflow({ ...valid, month: '2026-09'.repeat(1500) }, declare),
      toolError(/month: must be a month YYYY-MM/),
    );
    add(
      'invalid arguments',
      'room id with control characters',
      reflow({ ...valid, offline_rooms: ['studio-b\u0000'] }, declare),
      toolError(/room ids may hold only/),
    );
    add(
      'invalid arguments',
      'unknown key',
      reflow({ ...valid, owner: 'someone-else' }, declare),
      toolError(/Unrecognized key/),
    );
    add('invalid arguments', 'dry_run "yes"', reflow({ ...valid, dry_run: 'yes' }, declare), toolError(/dry_run/));
    add('invalid arguments', 'missing month', reflow({ offline_rooms: [ctx.rooms[0]] }, declare), toolError(/month/));
    add(
      'invalid arguments',
      'rooms not an array',
      reflow({ ...valid, offline_rooms: ctx.rooms[0] }, declare),
      toolError(/offline_rooms/),
    );
  }
  for (const args of [
    { month: '2026-9' },
    { month: '2026-09', room: 'nowhere' },
    { month: '2026-09', room: '' },
    { month: '2026-09', extra: 1 },
    {},
  ])
    add(
      'invalid arguments',
      `list_bookings ${JSON.stringify(args)}`,
      call('tools/call', { name: 'list_bookings', arguments: args }),
      toolError(/month|room|Unknown room|Unrecognized key/),
    );

  // Guessed task ids (well-formed and not), and another principal's real ones: all read as unknown.
  // tasks/update is refused -32602 for any id (the SDK lifts inputResponses out of params); the
  // foreign-vs-unknown equality of its answer is checked in auth.test.ts.
  const notFound = (id: string, method: string) =>
    rpcError(
      -32602,
      200,
      method === 'tasks/update' ? undefined : new RegExp(`^Task not found( or expired: ${escapeRegExp(id)})?$`),
    );
  const guessed = [
    ...sample(fc.stringMatching(/^[0-9a-f]{40}$/), 20, 7).map((h) => `tsk_${h}`),
    // Any printable text; header values cannot keep outer whitespace, so neither do these ids.
    ...sample(
      fc.string({ minLength: 1, maxLength: 200 }).filter((t) => t.trim() === t),
      10,
      8,
    ),
  ];
  guessed.forEach((taskId, i) => {
    const m = ['tasks/get', 'tasks/cancel', 'tasks/update'][i % 3];
    add(
      'guessed task id',
      `${m} ${JSON.stringify(taskId).slice(0, 24)}`,
      call(m, { taskId, inputResponses: {} }),
      notFound(taskId, m),
    );
  });
  for (const taskId of ctx.foreignTaskIds)
    for (const m of ['tasks/get', 'tasks/cancel', 'tasks/update', 'tasks/get', 'tasks/cancel'])
      add(
        'foreign task id',
        `${m} ${taskId.slice(0, 12)}…`,
        call(m, { taskId, inputResponses: {} }),
        notFound(taskId, m),
      );
  for (const taskId of ctx.foreignTaskIds)
    add(
      'undeclared tasks/get',
      taskId.slice(0, 12),
      call('tasks/get', { taskId }, { declare: false }),
      rpcError(-32021),
    );
}
