// Every task id any client ever received, with how it got it and how it saw it end. The final
// checks hold the server to this list: each id must still be a row or a tombstone.

export type TerminalStatus = 'completed' | 'failed' | 'cancelled';
export const TERMINAL: readonly string[] = ['completed', 'failed', 'cancelled'];

export interface LedgerEntry {
  id: string;
  /** Which kind of client received it first (raw, sdk, background). */
  via: string;
  receivedAt: number;
  dryRun: boolean;
  /** The terminal status a client last saw, if any. */
  seenStatus?: TerminalStatus;
  /** A client was told "expired" before it saw the task end. */
  expiredUnfinished?: boolean;
}

export class TaskLedger {
  readonly entries = new Map<string, LedgerEntry>();
  /** Times an identical request returned a task already received (dedupe while working). */
  dedupeHits = 0;

  received(id: string, via: string, dryRun: boolean): void {
    if (this.entries.has(id)) {
      this.dedupeHits++;
      return;
    }
    this.entries.set(id, { id, via, receivedAt: Date.now(), dryRun });
  }

  saw(id: string, status: string): void {
    const entry = this.entries.get(id);
    if (entry && TERMINAL.includes(status)) entry.seenStatus = status as TerminalStatus;
  }

  expiredBeforeEnd(id: string): void {
    const entry = this.entries.get(id);
    if (entry && !entry.seenStatus) entry.expiredUnfinished = true;
  }

  /** Ids no client has seen end yet (the operator picks its cancellations from these). */
  unfinished(): string[] {
    return [...this.entries.values()].filter((e) => !e.seenStatus && !e.expiredUnfinished).map((e) => e.id);
  }
}
