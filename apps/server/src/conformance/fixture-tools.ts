import { setTimeout as sleep } from 'node:timers/promises';
import {
  fromJsonSchema,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type CallToolResult,
  type InputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { TaskToolDefinition, ToolCall } from '@reflow/mcp-tasks';
import { toTaskView, type TaskEngine } from '@reflow/tasks';
import { z } from 'zod';
import { accepted, elicitation, FIXTURE_KINDS } from './fixture-tasks.ts';
import { JSON_SCHEMA_2020_12 } from './json-schema-fixture.ts';

/** Fixture tools that need a client capability, checked before the tool runs (capability-guard.ts). */
export const FIXTURE_CAPABILITY_NEEDS = { test_missing_capability: 'sampling' };

/**
 * The tools the official conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12)
 * calls in the server scenarios scripts/conformance.sh runs. Registered only with
 * MCP_CONFORMANCE_FIXTURES=1. Task tools create rows on the durable engine like reflow_month does.
 */
/** Either era's task API (SEP-2663 extension or 2025-11-25): both take task tools the same way. */
interface TaskTools {
  tool<Args>(name: string, definition: TaskToolDefinition<Args>): unknown;
}

export function registerConformanceFixtures(mcp: McpServer, tasks: TaskTools, engine: TaskEngine): void {
  const start = async (kind: string, input: unknown, call: ToolCall) =>
    toTaskView((await engine.create({ owner: call.principal, kind, input })).task);
  const wait = (kind: string, input: unknown, call: ToolCall) => waitForResult(engine, kind, input, call);
  const needs = (call: ToolCall, capability: string) => {
    if (!call.clientCapabilities[capability])
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { [capability]: {} } },
        `This tool asks for input through ${capability}, which the request did not declare`,
      );
  };

  mcp.registerTool(
    'greet',
    { description: 'Says hello (synchronous)', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({
      content: [{ type: 'text', text: `Hello, ${name}!` }],
    }),
  );

  const slowArgs = z.object({ seconds: z.number().min(0).max(600), label: z.string().max(200).optional() });
  tasks.tool('slow_compute', {
    description: 'Sleeps `seconds` seconds as a durable task, then answers',
    inputSchema: slowArgs,
    start: (args, call) => start(FIXTURE_KINDS.slowCompute, args, call),
    run: (args, call) => wait(FIXTURE_KINDS.slowCompute, args, call),
  });
  const none = z.object({}).passthrough();
  for (const [name, kind, description] of [
    ['failing_job', FIXTURE_KINDS.failingJob, 'A task whose tool reports an execution error after about a second'],
    ['protocol_error_job', FIXTURE_KINDS.protocolErrorJob, 'A task that fails with a protocol-level error'],
  ] as const) {
    tasks.tool(name, {
      description,
      inputSchema: none,
      taskSupport: 'required',
      start: (_a, call) => start(kind, {}, call),
      run: unreachable,
    });
  }
  tasks.tool('confirm_delete', {
    description: 'Asks (input_required, elicitation) before "deleting" a file',
    inputSchema: z.object({ filename: z.string().min(1).max(200) }),
    taskSupport: 'required',
    start: (args, call) => (needs(call, 'elicitation'), start(FIXTURE_KINDS.confirmDelete, args, call)),
    run: unreachable,
  });
  tasks.tool('multi_input', {
    description: 'Asks two questions at once (input_required with two keys)',
    inputSchema: none,
    taskSupport: 'required',
    // No arguments: the timestamp keeps two calls from being the same task (identical input from one owner is deduplicated).
    start: (_a, call) => (needs(call, 'elicitation'), start(FIXTURE_KINDS.multiInput, { at: Date.now() }, call)),
    run: unreachable,
  });
  tasks.tool('test_tool_with_task', {
    description: 'Asks for a name in the call itself (SEP-2322), then greets as a task',
    inputSchema: none,
    taskSupport: 'required',
    start: (_a, call): InputRequiredResult | ReturnType<typeof start> => {
      needs(call, 'elicitation');
      const name = accepted(call.inputResponses?.user_name)?.name;
      if (typeof name === 'string' && name) return start(FIXTURE_KINDS.greetLater, { name }, call);
      return {
        resultType: 'input_required',
        inputRequests: {
          user_name: elicitation('What is your name?', { name: { type: 'string' } }, ['name']) as never,
        },
      };
    },
    run: unreachable,
  });

  mcp.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100 of 100' },
    async (ctx: ServerContext) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total: 100 },
          });
        if (progress < 100) await sleep(50);
      }
      return { content: [{ type: 'text', text: 'Progress reported' }] };
    },
  );
  mcp.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12 as never),
    },
    async () => ({
      content: [{ type: 'text', text: 'Schema accepted' }],
    }),
  );
  // Guarded in front of McpServer (see FIXTURE_CAPABILITY_NEEDS): it runs only when sampling is declared.
  // SEP-2243: `region` is mirrored into the Mcp-Param-Region header, which must match the body.
  const regionSchema = {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    required: ['region'],
  };
  mcp.registerTool(
    'test_header_param',
    {
      description: 'Echoes a region carried in both the body and the Mcp-Param-Region header',
      inputSchema: fromJsonSchema<{ region: string }>(regionSchema as never),
    },
    async (args) => ({
      content: [{ type: 'text', text: `Region ${args.region}` }],
    }),
  );
  mcp.registerTool('test_missing_capability', { description: 'Needs the sampling capability declared' }, async () => ({
    content: [{ type: 'text', text: 'Sampling is declared' }],
  }));
  mcp.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for input in-band (input_required), never as a separate request' },
    async (ctx: ServerContext) => {
      const answer = accepted(ctx.mcpReq.inputResponses?.answer);
      if (answer) return { content: [{ type: 'text', text: `Answered: ${JSON.stringify(answer)}` }] };
      return {
        resultType: 'input_required',
        inputRequests: { answer: elicitation('Anything to add?', { note: { type: 'string' } }, []) },
      } as never;
    },
  );
  mcp.registerTool(
    'test_logging_tool',
    { description: 'Logs only at the level the request asked for' },
    async (ctx: ServerContext) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return { content: [{ type: 'text', text: 'Logged' }] };
    },
  );
}

function unreachable(): Promise<CallToolResult> {
  throw new ProtocolError(-32603, 'task-only tool reached its synchronous path');
}

/** The synchronous answer of a task tool: the same durable task, waited for in this request. */
async function waitForResult(
  engine: TaskEngine,
  kind: string,
  input: unknown,
  call: ToolCall,
): Promise<CallToolResult> {
  const { task } = await engine.create({ owner: call.principal, kind, input });
  const row = await engine.waitFor(task.id, undefined, call.signal);
  if (!row) throw new ProtocolError(-32603, `Task ${task.id} expired before it finished`);
  if (row.status === 'completed') return JSON.parse(row.result!);
  if (row.status === 'failed') throw new ProtocolError(row.error?.code ?? -32603, row.error?.message ?? 'failed');
  return { content: [{ type: 'text', text: `Task ${task.id} was cancelled` }], isError: true };
}
