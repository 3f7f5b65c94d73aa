// Debian packages the project needs beyond `npm ci` (a browser, strace, PostgreSQL, wrk), installed
// with apt-get when missing and we are root; as anyone else, the error names the command to run.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** True when `path` is a file this process may execute. */
export function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** True when `command` is an executable in a directory on PATH. */
export function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && executable(join(dir, command)));
}

function aptGet(args) {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0)
    throw new Error(`\`apt-get ${args.join(' ')}\` failed (${result.error?.message ?? `exit ${result.status}`})`);
}

/**
 * Installs Debian's `pkg` with apt-get (when root) because `why`, unless `present()` already holds.
 * Throws, naming the command to run, when not root, when apt-get fails, or when `present()` is
 * still false afterwards.
 */
export function installDebian(pkg, why, present) {
  if (present()) return;
  const install = `apt-get update && apt-get install -y --no-install-recommends ${pkg}`;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) throw new Error(`${why}; run: sudo sh -c '${install}'`);
  console.error(`installing Debian's ${pkg} (apt-get): ${why}`);
  aptGet(['update', '-q']);
  aptGet(['install', '-y', '-q', '--no-install-recommends', pkg]);
  if (!present()) throw new Error(`apt-get installed ${pkg}, but it is still missing`);
}

/** installDebian for a package that puts `command` on PATH. */
export function ensureDebianPackage(pkg, why, command) {
  installDebian(pkg, why, () => onPath(command));
}
