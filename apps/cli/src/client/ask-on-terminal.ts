import { createInterface } from 'node:readline';

/** Answers a task's inputRequests by key, or undefined when it cannot (input ended, or a question it cannot ask). */
export type InputAsker = (inputRequests: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;

interface FormRequest {
  method?: string;
  params?: {
    mode?: string;
    message?: string;
    requestedSchema?: { properties?: Record<string, { type?: string; title?: string }>; required?: string[] };
  };
}

/**
 * Asks a task's elicitations on the terminal (stdin, so a piped "y" answers too): yes/no for a
 * boolean field, a line for a string. Anything else (sampling, roots, URL mode, other field types)
 * is left unanswered, and so is everything when stdin ends first.
 */
export const askOnTerminal: InputAsker = async (inputRequests) => {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string | undefined> => {
    process.stderr.write(prompt);
    const next = await lines.next();
    return next.done ? undefined : String(next.value).trim();
  };
  try {
    const answers: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(inputRequests)) {
      const request = raw as FormRequest;
      if (request.method !== 'elicitation/create' || request.params?.mode === 'url') return undefined;
      process.stderr.write(`\n${request.params?.message ?? 'The task asks:'}\n`);
      const content: Record<string, unknown> = {};
      for (const [field, schema] of Object.entries(request.params?.requestedSchema?.properties ?? {})) {
        const label = schema.title ?? field;
        if (schema.type === 'boolean') {
          let answer: boolean | undefined;
          while (answer === undefined) {
            const line = await ask(`${label}? [y/n] `);
            if (line === undefined) return undefined;
            if (/^(y|yes)$/i.test(line)) answer = true;
            else if (/^(n|no)$/i.test(line)) answer = false;
          }
          content[field] = answer;
        } else if (schema.type === 'string') {
          const line = await ask(`${label}: `);
          if (line === undefined) return undefined;
          content[field] = line;
        } else return undefined;
      }
      answers[key] = { action: 'accept', content };
    }
    return answers;
  } finally {
    rl.close();
  }
};
