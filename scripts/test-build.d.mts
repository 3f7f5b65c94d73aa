export function builtEntry(name: 'server' | 'cli'): string[] | undefined;
export function builtFile(name: string): string | undefined;
export function childScript(source: string): string[];
