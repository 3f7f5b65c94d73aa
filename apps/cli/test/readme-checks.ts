// What the README says its commands print: each `<!-- checked: COMMAND -->` mark and the fenced
// block after it, whose non-empty lines are the key lines COMMAND must print (… stands for any text).

export interface ReadmeCheck {
  command: string;
  keyLines: string[];
}

export function readmeChecks(readme: string): ReadmeCheck[] {
  const marks = /<!-- checked: (.+?) -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
  return [...readme.matchAll(marks)].map((m) => ({
    command: m[1].trim(),
    keyLines: m[2]
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  }));
}

/** A key line as a whole-line pattern: `…` matches any text, a run of spaces any run of whitespace. */
export function keyLinePattern(keyLine: string): RegExp {
  const body = keyLine
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'))
    .join('.*?');
  return new RegExp(`^${body}$`);
}
