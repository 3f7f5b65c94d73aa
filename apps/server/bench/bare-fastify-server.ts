// The framework's own ceiling for a poll, run as its own process by ceiling-phase.ts: bare Fastify
// (no logger, no hooks, no database), a /healthz like ours, and POST /mcp answering a tasks/get
// request with a constant of a real answer's size after parsing its body, as our route does.
import Fastify from 'fastify';

const answerBytes = Number(process.argv[2] ?? 400);
const answer = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { status: 'working', pad: 'x'.repeat(Math.max(0, answerBytes - 64)) },
});
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.get('/healthz', async () => ({ status: 'ok' }));
app.post('/mcp', async (request, reply) => {
  JSON.parse((request.body as Buffer).toString('utf8'));
  return reply.type('application/json').send(answer);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(address);
