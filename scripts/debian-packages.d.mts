export function executable(path: string): boolean;
export function onPath(command: string): boolean;
export function installDebian(pkg: string, why: string, present: () => boolean): void;
export function ensureDebianPackage(pkg: string, why: string, command: string): void;
