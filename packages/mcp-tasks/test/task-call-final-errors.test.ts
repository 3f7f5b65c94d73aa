// A direct create (answerTaskToolCall, 2026-07-28; answerLegacyTaskCall, 2025-11-25) whose `start`
// throws an error the host calls final (one the SDK path's identical call would meet again: store
// trouble, a shutdown) runs `start` once and answers as the SDK's own handler would: the same bytes,
// or, for anything but a refusal on 2026-07-28, the error thrown for the host to answer (a 503).
// An error the host does not call final still falls through (undefined) to the SDK.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { answerLegacyTaskCall } from '../src/legacy-task-call.ts';
import { listenForUnexpectedErrors, ToolRefusal } from '../src/start-errors.ts';
import { answerTaskToolCall } from '../src/task-call-fast-path.ts';
import type { TaskToolDefinition } from '../src/task-tools.ts';
import { LegacyTasks, TasksExtension } from '../src/index.ts';
import { MODERN, MODERN_CALL_HEADERS, modernCallBody } from './modern-tool-call.ts';

const SERVER_INFO = { name: 'final-errors', version: '0' };
const LEGACY = '2025-11-25';

/** An error shaped as a driver's: a string code, a message of its own. */
function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A tool whose start throws `thrown`, counting its calls. */
function throwingTool(thrown: unknown): { tool: TaskToolDefinition<Record<string, never>>; calls: () => number } {
  let calls = 0;
  return {
    tool: {
      description: 'Its start throws',
      inputSchema: z.object({}),
      start: () => {
        calls++;
        throw thrown;
      },
      run: async () => ({ content: [] }),
    },
    calls: () => calls,
  };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// A TS SDK 1.x client's member order.
const legacyBody = { method: 'tools/call', params: { name: 'throws', arguments: {}, task: {} }, jsonrpc: '2.0', id: 1 };

/** The SDK's answer to the era's create (TasksExtension or LegacyTasks over an empty store), as text. */
async function sdkAnswer(era: 'modern' | 'legacy', tool: TaskToolDefinition<any>, heard: unknown[]): Promise<string> {
  const store = { get: () => undefined, cancel: () => false, list: async () => ({ tasks: [] }) };
  const handler = createMcpHandler((ctx) => {
    const mcp = new McpServer(SERVER_INFO);
    (ctx.era === 'legacy' ? new LegacyTasks({ store }) : new TasksExtension({ store }))
      .tool('throws', tool)
      .attach(mcp);
    return mcp;
  });
  try {
    const headers = era === 'modern' ? MODERN_CALL_HEADERS : { ...HEADERS, 'mcp-protocol-version': LEGACY };
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify(era === 'modern' ? modernCallBody : legacyBody),
    });
    // The SSE body is written after fetch resolves: read it while the listener is installed.
    return await listenForUnexpectedErrors(
      (error) => heard.push(error),
      async () => (await handler.fetch(request)).text(),
    );
  } finally {
    await handler.close();
  }
}

const caller = { principal: 'alice', signal: new AbortController().signal };

function modernDirect(tool: TaskToolDefinition<any>, isFinal?: (error: unknown) => boolean) {
  return answerTaskToolCall(
    {
      body: modernCallBody,
      headers: {
        contentType: HEADERS['content-type'],
        accept: HEADERS.accept,
        protocolVersion: MODERN,
        method: 'tools/call',
        name: 'throws',
      },
    },
    () => tool,
    caller,
    SERVER_INFO,
    isFinal,
  );
}

function legacyDirect(tool: TaskToolDefinition<any>, heard: unknown[], isFinal?: (error: unknown) => boolean) {
  return listenForUnexpectedErrors(
    (error) => heard.push(error),
    () =>
      answerLegacyTaskCall(
        {
          body: legacyBody,
          headers: { contentType: HEADERS['content-type'], accept: HEADERS.accept, protocolVersion: LEGACY },
        },
        () => tool,
        caller,
        isFinal,
      ),
  );
}

const SHUTDOWN = new ToolRefusal('RFL_SHUTTING_DOWN', 'The server is shutting down and accepts no new tasks');
const BUSY = coded('canceling statement due to lock timeout', '55P03');

test('2026-07-28: a final refusal (a shutdown) is answered once, with the SDK answer byte for byte', async () => {
  const { tool, calls } = throwingTool(SHUTDOWN);
  const direct = await modernDirect(tool, (error) => error === SHUTDOWN);
  assert.equal(calls(), 1, 'start ran once');
  const heard: unknown[] = [];
  assert.equal(direct, await sdkAnswer('modern', tool, heard));
  assert.match(direct, /"isError":true/);
  assert.deepEqual(heard, []);
});

test('2026-07-28: final store trouble is thrown for the host to answer, after one start', async () => {
  const { tool, calls } = throwingTool(BUSY);
  await assert.rejects(
    modernDirect(tool, (error) => error === BUSY),
    (error) => error === BUSY,
  );
  assert.equal(calls(), 1);
});

test('2025-11-25: a final error is answered once, with the SDK answer byte for byte (a refusal as -32602; store trouble as -32603, heard by the listener)', async () => {
  for (const [thrown, code] of [
    [SHUTDOWN, -32602],
    [BUSY, -32603],
  ] as const) {
    const { tool, calls } = throwingTool(thrown);
    const heardDirect: unknown[] = [];
    const direct = await legacyDirect(tool, heardDirect, (error) => error === thrown);
    assert.equal(calls(), 1, 'start ran once');
    assert.equal(direct?.status, 200);
    const heardSdk: unknown[] = [];
    assert.equal(direct.body, await sdkAnswer('legacy', tool, heardSdk));
    assert.match(direct.body, new RegExp(`"code":${code}`));
    assert.deepEqual(heardDirect, heardSdk, 'the listener hears what it hears on the SDK path');
  }
});

test('an error the host does not call final falls through to the SDK, on either wire', async () => {
  for (const thrown of [BUSY, new ToolRefusal('RFL_UNKNOWN_ROOM', 'Unknown room studio-z'), new TypeError('a bug')]) {
    const modern = throwingTool(thrown);
    assert.equal(await modernDirect(modern.tool), undefined);
    assert.equal(await modernDirect(modern.tool, () => false), undefined);
    const legacy = throwingTool(thrown);
    const heard: unknown[] = [];
    assert.equal(await legacyDirect(legacy.tool, heard, () => false), undefined);
    assert.deepEqual(heard, [], 'nothing heard: the SDK path will hear it');
  }
});
