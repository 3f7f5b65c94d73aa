import { hostname } from 'node:os';

/** Whether a process with this pid exists on this host (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The claimants (instance ids `inst_<hex>@<host>:<pid>`) that are certainly dead: on this host,
 * and either their pid is gone or it is our own pid (a restarted container reuses pid 1) while the
 * instance is not us. Claimants on other hosts, or unparseable ones, are left to their leases.
 */
export function deadClaimants(claimants: string[], me: string): string[] {
  const host = hostname();
  return claimants.filter((claimant) => {
    if (claimant === me) return false;
    const match = /^inst_[0-9a-f]+@(.+):(\d+)$/.exec(claimant);
    if (!match || match[1] !== host) return false;
    const pid = Number(match[2]);
    return pid === process.pid || !alive(pid);
  });
}
