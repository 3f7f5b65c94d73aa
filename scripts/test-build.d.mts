export function builtEntry(name: 'server' | 'cli'): string[] | undefined;
