// What a task-declared tools/call answers when the tool's `start` throws, through the SDK's own
// handler (createMcpHandler, the TasksExtension over an empty store): a refusal (ToolRefusal,
// `CODE: message`) stays a tool error with its text; anything else (a driver's error, a bug) is a generic JSON-RPC
// internal error that quotes none of it, and the error itself goes to the request's listener.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { listenForUnexpectedErrors, refusalMessage, ToolRefusal } from '../src/start-errors.ts';
import { TasksExtension } from '../src/index.ts';
import { MODERN_CALL_HEADERS, modernCallBody } from './modern-tool-call.ts';

/** An error shaped as a driver's: a string code, a message of its own. */
function coded(message: string, code: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

test('refusalMessage: only a ToolRefusal is a refusal, whatever code or text another error carries', () => {
  assert.equal(
    refusalMessage(new ToolRefusal('RFL_UNKNOWN_ROOM', 'Unknown room x', { cause: coded('Unknown room x', 'X') })),
    'RFL_UNKNOWN_ROOM: Unknown room x',
  );
  for (const error of [
    coded('canceling statement due to lock timeout', '55P03'),
    coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    coded('database is locked', 'SQLITE_BUSY'),
    // The pool's own error has a stable code, and is no refusal.
    coded('All 10 database connections of this node were in use for 5000 ms (pool exhausted)', 'RFL_POOL_EXHAUSTED'),
    // A message shaped as a refusal, its code on the error: still the server's to read.
    coded('RFL_BAD_DATE: from 2026-02-30', 'RFL_BAD_DATE'),
    // A wrapper quoting SQL around a driver error.
    new Error('Failed query: insert into "tasks" … params: alice', { cause: coded('duplicate key', '23505') }),
    new TypeError("Cannot read properties of undefined (reading 'id')"),
    'a string',
    undefined,
  ])
    assert.equal(refusalMessage(error), undefined, String(error));
});

/** One task-declared tools/call of `tool` (whose start throws `thrown`) through the SDK's handler. */
async function callThrowing(thrown: unknown, heard: unknown[]): Promise<{ status: number; body: any }> {
  const handler = createMcpHandler(() => {
    const mcp = new McpServer({ name: 'start-errors', version: '0' });
    new TasksExtension({ store: { get: () => undefined, cancel: () => false } })
      .tool('throws', {
        description: 'Its start throws',
        inputSchema: z.object({}),
        start: () => {
          throw thrown;
        },
        run: async () => ({ content: [] }),
      })
      .attach(mcp);
    return mcp;
  });
  try {
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: MODERN_CALL_HEADERS,
      body: JSON.stringify(modernCallBody),
    });
    const response = await listenForUnexpectedErrors(
      (error) => heard.push(error),
      () => handler.fetch(request),
    );
    return { status: response.status, body: await response.json() };
  } finally {
    await handler.close();
  }
}

test('a start that throws a refusal answers a tool error with its text; the listener hears nothing', async () => {
  const heard: unknown[] = [];
  const { body } = await callThrowing(new ToolRefusal('RFL_UNKNOWN_ROOM', 'Unknown room studio-z'), heard);
  assert.deepEqual(body.result.content, [{ type: 'text', text: 'RFL_UNKNOWN_ROOM: Unknown room studio-z' }]);
  assert.equal(body.result.isError, true);
  assert.deepEqual(heard, []);
});

test('a start that throws anything else answers a generic internal error; the listener hears the error itself', async () => {
  for (const thrown of [
    coded('duplicate key value violates unique constraint "tasks_pkey"', '23505'),
    coded('All 10 database connections of this node were in use (pool exhausted)', 'RFL_POOL_EXHAUSTED'),
    new TypeError("Cannot read properties of undefined (reading 'owner')"),
  ]) {
    const heard: unknown[] = [];
    const { status, body } = await callThrowing(thrown, heard);
    assert.equal(status, 200, 'an in-band JSON-RPC error');
    assert.equal(body.result, undefined, 'no tool result');
    assert.equal(body.error.code, -32603);
    assert.equal(body.error.message, 'Internal error: tool throws could not start its task; the server logged why');
    assert.deepEqual(heard, [thrown]);
  }
});
