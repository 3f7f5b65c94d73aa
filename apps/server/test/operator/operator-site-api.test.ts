// /api/rooms, /api/bookings and the OpenAPI document at /docs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../helpers/test-server.ts';
import { getJson } from '../helpers/operator-helper.ts';

test('rooms and a month of bookings, one room at a time; bad month and unknown room are refused', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const rooms = await getJson(`${server.url}/api/rooms`);
  assert.equal(rooms.status, 200);
  assert.deepEqual(rooms.body.site, { name: 'Riverside Studios', timezone: 'Europe/London' });
  assert.equal(rooms.body.rooms.length, 9);
  assert.ok(rooms.body.rooms.some((r: any) => r.id === 'studio-b' && r.capacity > 0 && Array.isArray(r.features)));

  const month = await getJson(`${server.url}/api/bookings?month=2026-09`);
  assert.equal(month.status, 200);
  assert.equal(month.body.bookings.length, 1010);
  const studioB = await getJson(`${server.url}/api/bookings?month=2026-09&room=studio-b`);
  assert.ok(studioB.body.bookings.length > 142);
  assert.ok(
    studioB.body.bookings.every(
      (b: any) => b.roomId === 'studio-b' && /^2026-09-\d\dT\d\d:\d\d:\d\d\+01:00$/.test(b.start),
    ),
  );
  assert.equal((await getJson(`${server.url}/api/bookings?month=2026-10`)).body.bookings.length, 0);

  for (const [path, message] of [
    ['/api/bookings', /must have required property 'month'/],
    ['/api/bookings?month=2026-9', /month must match pattern/],
    ['/api/bookings?month=2026-09&room=studio-q', /room: Unknown room studio-q/],
    ['/api/bookings?month=2026-09&rooms=studio-b', /Unknown query parameter rooms/],
  ] as const) {
    const res = await getJson(`${server.url}${path}`);
    assert.equal(res.status, 400, path);
    assert.equal(res.body.code, 'RFL_BAD_FILTER', path);
    assert.match(res.body.error, message, path);
  }
});

test('the OpenAPI document at /docs describes every /api route with its schemas', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const doc = await getJson(`${server.url}/docs/json`);
  assert.equal(doc.status, 200);
  assert.match(doc.body.openapi, /^3\./);
  for (const path of [
    '/api/tasks',
    '/api/tasks/{id}',
    '/api/tasks/{id}/cancel',
    '/api/tasks/{id}/approve',
    '/api/tasks/{id}/reject',
    '/api/tasks/{id}/apply-plan',
    '/api/tasks/{id}/revert',
    '/api/tasks/{id}/changes.csv',
    '/api/tasks/{id}/changes.ics',
    '/api/reflows',
    '/api/rooms',
    '/api/bookings',
  ])
    assert.ok(doc.body.paths[path], `${path} documented`);
  const list = doc.body.paths['/api/tasks'].get;
  assert.deepEqual(list.parameters.map((p: any) => p.name).sort(), [
    'awaiting',
    'cursor',
    'kind',
    'limit',
    'since',
    'status',
  ]);
  assert.ok(list.responses['400'], 'errors documented');
  const page = await fetch(`${server.url}/docs`, { redirect: 'follow' });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /swagger/i);
});
