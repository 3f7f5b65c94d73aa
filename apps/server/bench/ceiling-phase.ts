// What the HTTP framework itself allows on this machine for the same two requests the polling
// phase compares: GET /healthz, and the very tasks/get POST answered with a constant of its size.
// The ratio between them bounds what any tasks/get implementation on Fastify could reach here.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { mcpBody, mcpHeaders } from '../harness/mcp-wire.ts';
import { runLoad, type LoadFigures } from './load.ts';

const SERVER = fileURLToPath(new URL('./bare-fastify-server.ts', import.meta.url));

export async function measureCeiling(options: {
  connections: number;
  seconds: number;
  answerBytes: number;
}): Promise<{ healthz: LoadFigures; poll: LoadFigures }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, String(options.answerBytes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [address] = (await once(child.stdout, 'data')) as [Buffer];
    const url = address.toString().trim();
    const load = { connections: options.connections, durationSeconds: options.seconds };
    const healthz = await runLoad({ ...load, url: `${url}/healthz`, accept: (b) => b.includes('"ok"') });
    const taskId = 'tsk_0123456789abcdef0123456789abcdef01234567';
    const poll = await runLoad({
      ...load,
      url: `${url}/mcp`,
      method: 'POST',
      headers: mcpHeaders('tasks/get', taskId),
      body: mcpBody('tasks/get', { taskId }),
      accept: (b) => b.includes('"status":"working"'),
    });
    return { healthz, poll };
  } finally {
    child.kill('SIGKILL');
  }
}
