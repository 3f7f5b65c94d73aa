// A raw HTTP POST over node:http: unlike fetch it can send any Host header and any bytes, which is
// what a hostile client does. Returns the status, headers and the JSON-RPC message of the answer.
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON body, or the last `data:` event of an SSE answer; undefined when neither parses. */
  json: any;
}

export function rawPost(url: string, headers: Record<string, string>, body: string | Buffer): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseAnswer(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} within 30 s`)));
    req.end(body);
  });
}

function parseAnswer(text: string): any {
  try {
    if (text.trimStart().startsWith('{')) return JSON.parse(text);
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .pop();
    return data ? JSON.parse(data.slice(5)) : undefined;
  } catch {
    return undefined;
  }
}

export function closeRawAgent(): void {
  agent.destroy();
}
